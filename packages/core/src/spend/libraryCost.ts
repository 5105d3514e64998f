import type { CostOf } from './priceBook.js';

/** The part of `@pydantic/genai-prices` loopguard uses. */
export type PriceLibrary = Pick<typeof import('@pydantic/genai-prices'), 'calcPrice'>;

let loading: Promise<CostOf> | undefined;

/** Model names remembered as unknown to the library at most (a hostile transcript may name millions). */
const UNKNOWN_KEPT = 1024;
/** Longest model name remembered as unknown (a longer one is looked up each time). */
const UNKNOWN_NAME_LENGTH = 200;

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
  // Whether the library knows a model depends on its name only (the bundled data never changes), and
  // a miss costs a search of every provider's models: a scan of a million replies of a model it does
  // not know asks once.
  const unknown = new Set<string>();
  return (record) => {
    if (record.model === undefined || unknown.has(record.model)) return undefined;
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
      if (result !== null) return result.total_price;
      if (record.model.length <= UNKNOWN_NAME_LENGTH) {
        if (unknown.size >= UNKNOWN_KEPT) unknown.clear();
        unknown.add(record.model);
      }
      return undefined;
    } catch {
      return undefined;
    }
  };
}
