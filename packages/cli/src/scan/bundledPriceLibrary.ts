import { existsSync } from 'node:fs';
import { type CostOf, libraryCostOf, loadLibraryCost } from '@loopguard/core/spend';
import { BUNDLED_PRICE_LIBRARY, bundledPriceLibrary } from '../hook/priceLibrary.js';

let loading: Promise<CostOf> | undefined;

/**
 * The pricing library's price book for `loopguard scan`, as core's `loadLibraryCost` gives it, but
 * loaded from the build's bundled copy with V8's code cache when both are there (the hook's
 * {@link bundledPriceLibrary}): each thread of a scan loads the library (0.8 MB of price data), and
 * compiling it was half of that (≈ 30 → 20 ms of CPU a thread; docs/benchmarks.md, scan37q).
 * Without the bundled copy (the sources, a build without bundles), or when it fails to load, the
 * installed package is imported.
 */
export function loadScanLibraryCost(): Promise<CostOf> {
  loading ??= (async () => {
    const library = existsSync(BUNDLED_PRICE_LIBRARY) ? bundledPriceLibrary() : undefined;
    return library === undefined ? loadLibraryCost() : libraryCostOf(library);
  })();
  return loading;
}
