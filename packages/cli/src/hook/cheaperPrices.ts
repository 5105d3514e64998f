import { formatUsd, libraryCostOf, type ModelPrice } from '@loopguard/core/spend';
import { requirePriceLibrary } from './priceLibrary.js';

/** Tokens a price is read at: few, so that no long-context tier of the library applies. */
const SAMPLE_TOKENS = 1000;

/** A price's four kinds of token, as `ModelPrice` defaults them, and their words. */
const KINDS = [
  ['inputTokens', 'input', (p: ModelPrice) => p.input],
  ['outputTokens', 'output', (p: ModelPrice) => p.output],
  ['cacheCreationTokens', 'cache writes', (p: ModelPrice) => p.cacheWrite ?? p.input],
  ['cacheReadTokens', 'cache reads', (p: ModelPrice) => p.cacheRead ?? p.input / 10],
] as const;

/**
 * The models `spend.prices` prices below the pricing library (`@pydantic/genai-prices`), in
 * words: `"claude-sonnet-4-5" input $0.00 (the library: $3.00), output $0.00 (the library:
 * $15.00), … a million tokens`, models joined by `; `; `undefined` when none is. A repository's
 * file that prices a model the library knows at $0 makes every budget in dollars count nothing of
 * its replies while every door shows the budget (trust52): `init` and `status` say it. A model the
 * library does not price (a fine-tune: the documented use) and a price at or above the library's
 * are not listed. Loads the library (≈ 30 ms) only when the file sets prices.
 * @example pricesBelowLibrary({ 'my-fine-tune': { input: 0, output: 0 } }) // undefined
 */
export function pricesBelowLibrary(prices: Readonly<Record<string, ModelPrice>>): string | undefined {
  const models = Object.keys(prices);
  if (models.length === 0) return undefined;
  const costOf = libraryCostOf(requirePriceLibrary());
  const below: string[] = [];
  for (const model of models) {
    const own = prices[model] as ModelPrice;
    const lower: string[] = [];
    for (const [field, words, ownPrice] of KINDS) {
      const sample = { model, inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0 };
      const cost = costOf({ ...sample, [field]: SAMPLE_TOKENS });
      if (cost === undefined) break; // the library does not price this model
      const library = (cost * 1_000_000) / SAMPLE_TOKENS;
      if (ownPrice(own) < library - 1e-9)
        lower.push(`${words} ${formatUsd(ownPrice(own))} (the library: ${formatUsd(library)})`);
    }
    if (lower.length > 0) below.push(`${JSON.stringify(model)} ${lower.join(', ')} a million tokens`);
  }
  return below.length === 0 ? undefined : below.join('; ');
}
