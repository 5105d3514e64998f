import type { CostOf } from './priceBook.js';

/** The part of `@pydantic/genai-prices` loopguard uses. */
export type PriceLibrary = Pick<typeof import('@pydantic/genai-prices'), 'calcPrice'>;

let loading: Promise<CostOf> | undefined;

/**
 * The cost of a reply from `@pydantic/genai-prices`' bundled price data (offline: it is never
 * updated from the network), matching the model name against every provider. A model the data does
 * not know, or a record without a model, costs `undefined`. The library (~0.8 MB of price data) is
 * loaded on the first call only, so that a hook call without a money budget never pays for it.
 * @example const costOf = await loadLibraryCost(); costOf({ model: 'claude-sonnet-4-5', inputTokens: 1000, outputTokens: 100, cacheCreationTokens: 0, cacheReadTokens: 0 });
 */
export function loadLibraryCost(): Promise<CostOf> {
  loading ??= import('@pydantic/genai-prices').then(libraryCostOf);
  return loading;
}

/**
 * {@link loadLibraryCost} with the library already loaded (a CommonJS caller `require`s it: the
 * hook's bundle cannot `import()`).
 */
export function libraryCostOf({ calcPrice }: PriceLibrary): CostOf {
  return (record) => {
    if (record.model === undefined) return undefined;
    try {
      // The library's input_tokens is the whole input, cache reads and writes included.
      const result = calcPrice(
        {
          input_tokens: record.inputTokens + record.cacheCreationTokens + record.cacheReadTokens,
          cache_write_tokens: record.cacheCreationTokens,
          cache_read_tokens: record.cacheReadTokens,
          output_tokens: record.outputTokens,
        },
        record.model,
        record.at === undefined ? undefined : { timestamp: new Date(record.at) },
      );
      return result === null ? undefined : result.total_price;
    } catch {
      return undefined;
    }
  };
}
