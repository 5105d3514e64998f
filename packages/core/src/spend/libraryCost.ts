import { type PlainPrices, plainCost, plainPricesOf, type TokenUsage } from './plainPrices.js';
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
  // And so does the table of a model it knows: one the library applies alike at every time is kept,
  // and a reply priced from it as the library prices it (each call of the library took 40-60 µs,
  // most of a scan's CPU on transcripts of known models).
  const plain = new Map<string, PlainPrices | null>();
  return (record) => {
    const model = record.model;
    if (model === undefined || unknown.has(model)) return undefined;
    // The library's input_tokens is the whole input, cache reads and writes included.
    const usage: TokenUsage = {
      input_tokens: record.inputTokens + record.cacheCreationTokens + record.cacheReadTokens,
      cache_write_tokens: record.cacheCreationTokens,
      cache_read_tokens: record.cacheReadTokens,
      output_tokens: record.outputTokens,
    };
    const prices = plain.get(model);
    const known = prices === undefined || prices === null ? undefined : plainCost(prices, usage);
    if (known !== undefined) return known;
    try {
      const result = calcPrice(
        usage,
        model,
        record.at === undefined ? undefined : { timestamp: new Date(record.at) },
      );
      if (result !== null) {
        if (prices === undefined && model.length <= UNKNOWN_NAME_LENGTH) {
          if (plain.size >= UNKNOWN_KEPT) plain.clear();
          plain.set(model, plainPricesOf(result.model.prices) ?? null);
        }
        return result.total_price;
      }
      if (model.length <= UNKNOWN_NAME_LENGTH) {
        if (unknown.size >= UNKNOWN_KEPT) unknown.clear();
        unknown.add(model);
      }
      return undefined;
    } catch {
      return undefined;
    }
  };
}
