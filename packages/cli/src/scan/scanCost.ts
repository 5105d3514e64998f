import type { UsageRecord } from '@loopguard/core/spend';
import { type CostOf, type ModelPrice, priceBook, tokensOf } from '@loopguard/core/spend';
import { loadScanLibraryCost } from './bundledPriceLibrary.js';
import type { TranscriptRead } from './TranscriptParser.js';

/** How a scan prices what it reads: the guard's price book, and `--budget`. */
export interface ScanPricing {
  /** The price book: per-model overrides (`spend.prices`), then the pricing library. */
  costOf: CostOf;
  /** `--budget`: a session's cap in US dollars, to show what it would have saved. */
  budgetUsd?: number;
}

/** A {@link ScanPricing} as plain data, for the worker threads: `spend.prices` and `--budget`. */
export interface ScanPricingSource {
  /** `spend.prices`: per-model prices over the pricing library's. */
  prices: Record<string, ModelPrice>;
  /** `--budget`, US dollars per session. */
  budgetUsd?: number;
}

/** The price book of `source`: its own prices, then the pricing library. */
export async function scanPricing(source: ScanPricingSource): Promise<ScanPricing> {
  const costOf = priceBook(source.prices, await loadScanLibraryCost());
  return source.budgetUsd === undefined ? { costOf } : { costOf, budgetUsd: source.budgetUsd };
}

/**
 * What one session cost, priced reply by reply from its model: dollars of the priced replies,
 * tokens whose cost is unknown (a model without a price, a format that names no model), and, with a
 * budget, the cost the guard would have stopped at (the reply that reached the cap).
 */
export class ScanCost {
  /** Dollars of the replies whose model has a price. */
  usd = 0;
  /** Tokens of the replies without a price: their cost is unknown, not 0. */
  unpricedTokens = 0;
  /**
   * Whether a reply with no time was priced: the pricing library prices it at the time of the scan
   * (a model's price can change from a day on), so the same file may cost otherwise another day.
   */
  pricedToday = false;
  private atBudget: number | null = null;

  constructor(private readonly pricing: ScanPricing) {}

  /** Prices one record's reply (or the final counts it reports, per model). */
  add(read: TranscriptRead): void {
    if (read.tokens === 0) return;
    const records = read.usage === undefined ? [] : Array.isArray(read.usage) ? read.usage : [read.usage];
    let priced = 0;
    let unpriced = records.length === 0;
    for (const record of records as readonly UsageRecord[]) {
      if (record.at === undefined) this.pricedToday = true;
      const cost = this.pricing.costOf(record);
      if (cost === undefined || !Number.isFinite(cost) || cost < 0) unpriced = true;
      else {
        this.usd += cost;
        priced += tokensOf(record);
      }
    }
    // the record's tokens beyond the priced ones are of unknown cost (all priced: none are)
    if (unpriced) this.unpricedTokens += Math.max(0, read.tokens - priced);
    const budget = this.pricing.budgetUsd;
    if (budget !== undefined && this.atBudget === null && this.usd >= budget) this.atBudget = this.usd;
  }

  /** What the budget would have saved: the dollars after the reply that reached it; `null` without `--budget`. */
  get budgetSaved(): number | null {
    if (this.pricing.budgetUsd === undefined) return null;
    return this.atBudget === null ? 0 : this.usd - this.atBudget;
  }
}
