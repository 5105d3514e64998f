import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { compilePriceLibrary } from '../src/hook/priceLibrary.js';

// the build's copy of the pricing library and V8's code cache of it (bundle-hook.mjs)
const library = fileURLToPath(new URL('../dist/bundle/genai-prices.cjs', import.meta.url));
const cache = fileURLToPath(new URL('../dist/bundle/genai-prices.cache', import.meta.url));

const MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-1', 'gpt-5', 'gemini-2.5-pro', 'no-such-model'];
const USAGES = [
  { input_tokens: 21_300, cache_write_tokens: 100, cache_read_tokens: 20_000, output_tokens: 90 },
  { input_tokens: 250_000, cache_write_tokens: 0, cache_read_tokens: 0, output_tokens: 7 },
];

/** What `calcPrice` of `lib` says of each model and usage, at two times. */
function prices(lib: { calcPrice: typeof calcPrice }) {
  return MODELS.flatMap((model) =>
    USAGES.flatMap((usage) =>
      [Date.UTC(2025, 0, 1), Date.UTC(2026, 9, 12)].map(
        (at) => lib.calcPrice(usage, model, { timestamp: new Date(at) })?.total_price ?? null,
      ),
    ),
  );
}

describe("the scan's pricing library, bundled with its code cache", () => {
  it('prices as the installed package does, with the cache and with a cache V8 refuses', () => {
    const expected = prices({ calcPrice });
    expect(expected.filter((price) => price !== null).length).toBeGreaterThan(10);
    const cached = compilePriceLibrary(library, readFileSync(cache));
    expect(cached.script.cachedDataRejected).toBe(false); // made by this node: taken
    expect(prices(cached.library)).toEqual(expected);
    const spoiled = compilePriceLibrary(library, Buffer.from('not a code cache'));
    expect(spoiled.script.cachedDataRejected).toBe(true);
    expect(prices(spoiled.library)).toEqual(expected);
  });

  it('is ASCII: V8 keeps its source at one byte a character', () => {
    const source = readFileSync(library, 'utf8');
    expect([...source].filter((character) => character > '\u007f')).toEqual([]);
  });
});

describe("the hook's pricing library", () => {
  it("is the build's bundled copy with its code cache, not the package compiled at each call", () => {
    // The package's CommonJS entry, as the hook resolved it: a require would leave it in node's cache.
    const fromHook = createRequire(fileURLToPath(new URL('../dist/hook/', import.meta.url)));
    const entry = fromHook.resolve('@pydantic/genai-prices');
    delete fromHook.cache[entry];
    // the built module, as the hook runs it: its place finds the build's bundle folder
    const built = fileURLToPath(new URL('../dist/hook/priceLibrary.js', import.meta.url));
    const { requirePriceLibrary } = fromHook(built) as typeof import('../src/hook/priceLibrary.js');
    const hooked = requirePriceLibrary();
    expect(fromHook.cache[entry]).toBeUndefined();
    expect(prices(hooked)).toEqual(prices({ calcPrice }));
  });
});

describe("the build's code caches in a hook call from the startup snapshot (V8's baseline compiler off)", () => {
  it("are taken: the pricing library's (made with V8's defaults) and zod's (made with the call's flag)", () => {
    // in a process of its own: the flag is V8's, for the whole process
    const built = (path: string) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url));
    const script = `
      import { readFileSync } from 'node:fs';
      import { Script } from 'node:vm';
      const { baselineCompilerOff } = await import(${JSON.stringify(built('hook/baselineCompiler.js'))});
      const { compilePriceLibrary } = await import(${JSON.stringify(built('hook/priceLibrary.js'))});
      baselineCompilerOff();
      const prices = compilePriceLibrary(${JSON.stringify(library)}, readFileSync(${JSON.stringify(cache)}));
      // zod as the snapshot's loader compiles it (bundle-hook.mjs), with its cache
      const zod = ${JSON.stringify(built('bundle/zod-subset.cjs'))};
      const zodScript = new Script('(function (exports, require, module) {' + readFileSync(zod, 'latin1') + '\\n})', {
        filename: zod,
        cachedData: readFileSync(zod.replace(/cjs$/, 'cache')),
      });
      process.stdout.write(JSON.stringify([prices.script.cachedDataRejected, zodScript.cachedDataRejected]));
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual([false, false]);
  });
});
