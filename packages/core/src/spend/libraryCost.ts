import { calcPrice } from '@pydantic/genai-prices';
import type { CostOf } from './priceBook.js';

/**
 * The cost of a reply from `@pydantic/genai-prices`' bundled price data (offline: it is never
 * updated from the network), matching the model name against every provider. A model the data does
 * not know, or a record without a model, costs `undefined`.
 * @example libraryCost({ model: 'claude-sonnet-4-5', inputTokens: 1000, outputTokens: 100, cacheCreationTokens: 0, cacheReadTokens: 0 });
 */
export const libraryCost: CostOf = (record) => {
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
