import type { UsageRecord } from './usageRecord.js';

/**
 * A model's prices in US dollars per million tokens, as `spend.prices` in `loopguard.config.yaml`
 * gives them: `input` and `output`; `cacheWrite` defaults to `input`, `cacheRead` to a tenth of it.
 */
export interface ModelPrice {
  /** Dollars per million uncached input tokens. */
  input: number;
  /** Dollars per million output tokens. */
  output: number;
  /** Dollars per million tokens written to the cache. @default input */
  cacheWrite?: number;
  /** Dollars per million tokens read from the cache. @default input / 10 */
  cacheRead?: number;
}

/** What a reply cost, in US dollars; `undefined` when the model's price is not known (never 0). */
export type CostOf = (record: UsageRecord) => number | undefined;

/**
 * The cost of a record from per-model overrides first, then `library` (the pricing library,
 * {@link libraryCost}); a model neither knows costs `undefined`.
 * @param overrides - prices by exact model name.
 * @param library - the fallback; absent: only the overrides are known.
 * @example priceBook({ 'my-model': { input: 1, output: 2 } })({ model: 'my-model', inputTokens: 1e6, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0 }); // 1
 */
export function priceBook(overrides: Readonly<Record<string, ModelPrice>> = {}, library?: CostOf): CostOf {
  return (record) => {
    const own = record.model === undefined ? undefined : overrides[record.model];
    if (own !== undefined && Object.hasOwn(overrides, record.model as string))
      return overrideCost(own, record);
    return library?.(record);
  };
}

function overrideCost(price: ModelPrice, record: UsageRecord): number {
  const cacheWrite = price.cacheWrite ?? price.input;
  const cacheRead = price.cacheRead ?? price.input / 10;
  return (
    (record.inputTokens * price.input +
      record.outputTokens * price.output +
      record.cacheCreationTokens * cacheWrite +
      record.cacheReadTokens * cacheRead) /
    1_000_000
  );
}
