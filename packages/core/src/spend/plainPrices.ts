/** The usage loopguard gives the pricing library (`input_tokens` is the whole input, cache included). */
export type TokenUsage = {
  /** Input tokens, cache writes and reads not included. */
  input_tokens: number;
  /** Tokens written to the prompt cache. */
  cache_write_tokens: number;
  /** Tokens read from the prompt cache. */
  cache_read_tokens: number;
  /** Output tokens. */
  output_tokens: number;
};

/** A price per million tokens: one number, or tiers chosen by the whole input's size (the library's). */
type Price = number | { base: number; tiers: ReadonlyArray<{ start: number; price: number }> };

/**
 * The library's units of the four counts loopguard gives it, by price key: the usage key it reads,
 * and whether it is input (cache reads and writes are taken out of the whole input before that is
 * priced). Each is per million tokens.
 */
const TOKEN_UNITS: Readonly<Record<string, { usage: keyof TokenUsage; input: boolean }>> = {
  input_mtok: { usage: 'input_tokens', input: true },
  cache_write_mtok: { usage: 'cache_write_tokens', input: true },
  cache_read_mtok: { usage: 'cache_read_tokens', input: true },
  output_mtok: { usage: 'output_tokens', input: false },
};

/**
 * The library's other units found in its tables, none of which loopguard reports: each prices 0
 * (its count is absent) and none is an ancestor of the four counts (none takes part in their
 * split), so a table holding them costs what its four token prices say. `requests_kcount` is not
 * among them: the library counts one request whatever the usage.
 */
const ABSENT_UNITS = new Set([
  'cache_write_1h_mtok',
  'cache_audio_read_mtok',
  'cache_image_read_mtok',
  'input_audio_mtok',
  'input_image_mtok',
  'input_video_mtok',
  'output_audio_mtok',
  'output_image_mtok',
  'output_video_mtok',
  'output_reasoning_mtok',
  'output_citation_mtok',
  'audio_hours',
  'input_audio_hours',
  'input_document_kpages',
  'input_annotated_document_kpages',
  'input_text_messages_kcount',
  'web_searches_kcount',
  'storage_searches_kcount',
]);

/** A model's prices the library applies alike at every time, as {@link plainCost} reads them. */
export interface PlainPrices {
  /** The token prices in the table's order: usage key, price, whether input. */
  readonly terms: ReadonlyArray<readonly [usage: keyof TokenUsage, price: Price, input: boolean]>;
  /** Whether cache reads have a price (only then are they taken out of the whole input). */
  readonly reads: boolean;
  /** Whether cache writes have a price (only then are they taken out of the whole input). */
  readonly writes: boolean;
}

/** Largest count priced here: beyond it the library's rounding tolerance could reach a token. */
const MAX_TOKENS = 1e12;

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** A price as the library reads it (tiers sorted by their start), or `undefined` when it would refuse it. */
function priceOf(value: unknown): Price | undefined {
  if (isAmount(value)) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { base, tiers } = value as { base?: unknown; tiers?: unknown };
  if (!isAmount(base) || !Array.isArray(tiers)) return undefined;
  const sorted: Array<{ start: number; price: number }> = [];
  for (const tier of tiers) {
    if (typeof tier !== 'object' || tier === null || Array.isArray(tier)) return undefined;
    const { start, price } = tier as { start?: unknown; price?: unknown };
    if (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0 || !isAmount(price))
      return undefined;
    sorted.push({ start, price });
  }
  return { base, tiers: sorted.sort((a, b) => a.start - b.start) };
}

/**
 * `prices` (a priced reply's `model.prices`, as `@pydantic/genai-prices` gives them) as
 * {@link PlainPrices}, or `undefined` when the library must price each reply itself: prices that
 * change with the date or the hour (a list), a request price, or a unit not known here.
 */
export function plainPricesOf(prices: unknown): PlainPrices | undefined {
  if (typeof prices !== 'object' || prices === null || Array.isArray(prices)) return undefined;
  const terms: Array<readonly [keyof TokenUsage, Price, boolean]> = [];
  for (const [key, value] of Object.entries(prices)) {
    if (value === undefined) continue; // the library skips it too
    const price = priceOf(value);
    if (price === undefined) return undefined;
    const unit = Object.hasOwn(TOKEN_UNITS, key) ? TOKEN_UNITS[key] : undefined;
    if (unit !== undefined) terms.push([unit.usage, price, unit.input]);
    else if (!ABSENT_UNITS.has(key)) return undefined;
  }
  const priced = (usage: keyof TokenUsage) => terms.some(([key]) => key === usage);
  return { terms, reads: priced('cache_read_tokens'), writes: priced('cache_write_tokens') };
}

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0 && value <= MAX_TOKENS;
}

/**
 * The total price of `usage` under `prices`, computed as the library computes it, the same
 * operations in the same order, so the same number to the last bit (`plainPrices.test.ts` compares
 * both on every model of the library): each count, the whole input less its priced cache reads and
 * writes, times its price (a tier's when the whole input is over the tier's start) per million,
 * summed in the table's order into the input and the output side, then the two sides. `undefined`
 * for a usage the library refuses or rounds (a count that is not a whole number or is over 10^12, a
 * cache larger than the input): the library prices those itself.
 */
export function plainCost(prices: PlainPrices, usage: TokenUsage): number | undefined {
  const whole = usage.input_tokens;
  const counts = isCount(whole) && isCount(usage.output_tokens);
  if (!counts || !isCount(usage.cache_read_tokens) || !isCount(usage.cache_write_tokens)) return undefined;
  const uncached =
    whole - ((prices.reads ? usage.cache_read_tokens : 0) + (prices.writes ? usage.cache_write_tokens : 0));
  if (uncached < 0) return undefined;
  let input = 0;
  let output = 0;
  for (const [key, price, isInput] of prices.terms) {
    const tokens = key === 'input_tokens' ? uncached : usage[key];
    let cost: number;
    if (typeof price === 'number') cost = (price * tokens) / 1e6;
    else if (tokens <= 0) cost = 0;
    else {
      let rate = price.base;
      for (const tier of price.tiers) if (whole > tier.start) rate = tier.price;
      cost = (((rate * tokens) / 1e6) * 1e6) / 1e6;
    }
    if (isInput) input += cost;
    else output += cost;
  }
  return input + output + 0;
}
