import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import type { PriceLibrary } from '@loopguard/core/spend';
import { withStartFlags } from './baselineCompiler.js';

/**
 * The pricing library as one CommonJS file of the build (`dist/bundle/genai-prices.cjs`, made by
 * scripts/bundle-hook.mjs from the installed `@pydantic/genai-prices`), beside V8's code cache of it
 * (`genai-prices.cache`, made where the build is installed, beside the hook's startup snapshot:
 * scripts/build-hook-snapshot.mjs). Found from this module's place and from the bundles' (both
 * resolve to `dist/bundle/`).
 */
export const BUNDLED_PRICE_LIBRARY = fileURLToPath(new URL('../bundle/genai-prices.cjs', import.meta.url));

/** V8's code cache of {@link BUNDLED_PRICE_LIBRARY}. */
export const BUNDLED_PRICE_CACHE = BUNDLED_PRICE_LIBRARY.replace(/\.cjs$/, '.cache');

/**
 * Compiles and runs the bundled pricing library `file` with V8's code cache `cachedData` (one the
 * running node refuses is ignored: the source is compiled), with V8's flags as node starts
 * ({@link withStartFlags}). The build's cache is made through this
 * same function, so that the wrapper V8 checks the cache against is the one loaded.
 * @returns the library, and the script (for `createCachedData`).
 */
export function compilePriceLibrary(
  file: string,
  cachedData?: Buffer,
): { library: PriceLibrary; script: Script } {
  const source = `(function (exports, require, module) {${readFileSync(file, 'latin1')}\n})`;
  // the cache is the build's, made with V8's defaults, which a hook call changed (baselineCompiler.ts)
  const script = withStartFlags(
    () => new Script(source, { filename: file, ...(cachedData === undefined ? {} : { cachedData }) }),
  );
  const module = { exports: {} as PriceLibrary };
  script.runInThisContext()(module.exports, createRequire(file), module);
  return { library: module.exports, script };
}

/**
 * The build's bundled pricing library ({@link BUNDLED_PRICE_LIBRARY}), compiled with its code cache
 * when the install made one; `undefined` without the bundled copy (the sources, a build without
 * bundles) or when it fails to load. Both files are the install's own, in the folder of the hook's
 * startup snapshot and zod's code cache: nothing outside the install is read.
 */
export function bundledPriceLibrary(): PriceLibrary | undefined {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(BUNDLED_PRICE_CACHE);
  } catch {
    // no cache made (a build not installed by install.sh or bundle-hook.mjs): compiled from source
  }
  try {
    return compilePriceLibrary(BUNDLED_PRICE_LIBRARY, cachedData).library;
  } catch {
    return undefined;
  }
}

/**
 * `@pydantic/genai-prices`, loaded when a call first needs a price: the hook's bundle leaves it out
 * (~0.8 MB of price data that most calls never use). The build's bundled copy with V8's code cache
 * ({@link bundledPriceLibrary}: ≈ 15 ms of CPU less than compiling the package, docs/benchmarks.md,
 * scan37r), else the installed package, required (loaded through `vm.Script` on Node 20, the hook
 * cannot `import()` it).
 */
export function requirePriceLibrary(): PriceLibrary {
  return bundledPriceLibrary() ?? (createRequire(import.meta.url)('@pydantic/genai-prices') as PriceLibrary);
}
