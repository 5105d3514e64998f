import { createRequire } from 'node:module';
import type { PriceLibrary } from '@loopguard/core/spend';

/**
 * `@pydantic/genai-prices`, required when a call first needs a price: the hook's bundle leaves it
 * out (~0.8 MB of price data that most calls never use) and, loaded through `vm.Script` on Node 20,
 * cannot `import()` it.
 */
export function requirePriceLibrary(): PriceLibrary {
  return createRequire(import.meta.url)('@pydantic/genai-prices') as PriceLibrary;
}
