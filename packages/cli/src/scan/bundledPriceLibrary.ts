import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { type CostOf, libraryCostOf, loadLibraryCost, type PriceLibrary } from '@loopguard/core/spend';

/**
 * The pricing library as one CommonJS file of the build (`dist/bundle/genai-prices.cjs`, made by
 * scripts/bundle-hook.mjs from the installed `@pydantic/genai-prices`), beside V8's code cache of it
 * (`genai-prices.cache`, made where the build is installed: scripts/build-hook-snapshot.mjs). Found
 * from this module's place and from the scan bundles' (both resolve to `dist/bundle/`).
 */
export const BUNDLED_PRICE_LIBRARY = fileURLToPath(new URL('../bundle/genai-prices.cjs', import.meta.url));

/** V8's code cache of {@link BUNDLED_PRICE_LIBRARY}. */
export const BUNDLED_PRICE_CACHE = BUNDLED_PRICE_LIBRARY.replace(/\.cjs$/, '.cache');

/**
 * Compiles and runs the bundled pricing library `file` with V8's code cache `cachedData` (one the
 * running node refuses is ignored: the source is compiled). The build's cache is made through this
 * same function, so that the wrapper V8 checks the cache against is the one loaded.
 * @returns the library, and the script (for `createCachedData`).
 */
export function compilePriceLibrary(
  file: string,
  cachedData?: Buffer,
): { library: PriceLibrary; script: Script } {
  const script = new Script(`(function (exports, require, module) {${readFileSync(file, 'latin1')}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const module = { exports: {} as PriceLibrary };
  script.runInThisContext()(module.exports, createRequire(file), module);
  return { library: module.exports, script };
}

let loading: Promise<CostOf> | undefined;

/**
 * The pricing library's price book for `loopguard scan`, as core's `loadLibraryCost` gives it, but
 * loaded from the build's bundled copy with V8's code cache when both are there: each thread of a
 * scan loads the library (0.8 MB of price data), and compiling it was half of that (≈ 30 → 20 ms of
 * CPU a thread; docs/benchmarks.md, scan37q). Without the bundled copy (the sources, a build without
 * bundles), or when it fails to load, the installed package is imported.
 */
export function loadScanLibraryCost(): Promise<CostOf> {
  loading ??= (async () => {
    if (!existsSync(BUNDLED_PRICE_LIBRARY)) return loadLibraryCost();
    try {
      let cachedData: Buffer | undefined;
      try {
        cachedData = readFileSync(BUNDLED_PRICE_CACHE);
      } catch {
        // no cache made (a build not installed by install.sh or bundle-hook.mjs): compiled from source
      }
      return libraryCostOf(compilePriceLibrary(BUNDLED_PRICE_LIBRARY, cachedData).library);
    } catch {
      return loadLibraryCost();
    }
  })();
  return loading;
}
