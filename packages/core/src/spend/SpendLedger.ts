import type { CostOf } from './priceBook.js';
import { tokensOf, type UsageRecord } from './usageRecord.js';

/** Reply ids a ledger remembers, most recent first, to count a repeated reply once. */
export const MAX_REMEMBERED_REPLIES = 2048;
/** Minutes of spend a ledger keeps for the burn rate. */
export const MAX_BURN_MINUTES = 120;

/** What a ledger has counted: the numbers every budget and every message reads. */
export interface SpendTotals {
  /** Replies counted (each reply id once; an `adjustment` is none). */
  replies: number;
  /** All tokens: input, output, cache writes and cache reads. */
  tokens: number;
  /** The parts of `tokens`: input tokens not read from or written to a cache. */
  inputTokens: number;
  /** Output tokens. */
  outputTokens: number;
  /** Tokens written to the cache. */
  cacheCreationTokens: number;
  /** Tokens read from the cache. */
  cacheReadTokens: number;
  /** Dollars of the replies whose model has a price. */
  costUsd: number;
  /** Tokens of the replies whose model has no price: their cost is unknown, not 0. */
  unpricedTokens: number;
  /** The models without a price (at most 8 named). */
  unpricedModels: string[];
}

/** A ledger as JSON, to keep it between hook calls. */
export interface SpendLedgerSnapshot {
  /** What the ledger counted. */
  totals: SpendTotals;
  /** Reply ids counted, most recent first (at most {@link MAX_REMEMBERED_REPLIES}). */
  seen: string[];
  /** Spend per minute: `[minute since the epoch, tokens, dollars]`, oldest first. */
  minutes: [number, number, number][];
  /** Warnings already given, by key (`share`, `burn_rate`), so that each is given once. */
  warned: string[];
}

function emptyTotals(): SpendTotals {
  return {
    replies: 0,
    tokens: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheCreationTokens: 0,
    cacheReadTokens: 0,
    costUsd: 0,
    unpricedTokens: 0,
    unpricedModels: [],
  };
}

/**
 * What one scope (a session, a task, a project's day) has spent. Each reply id counts once however
 * often and in whatever order it is reported; records without an id always count. Pure and
 * serialisable: the hook keeps it as JSON between calls.
 * @example
 * const ledger = new SpendLedger();
 * ledger.add({ replyId: 'msg_1', model: 'm', inputTokens: 10, outputTokens: 5, cacheCreationTokens: 0, cacheReadTokens: 0 }, () => 0.01, 0);
 * ledger.totals.tokens; // 15
 */
export class SpendLedger {
  /** What has been counted. */
  readonly totals: SpendTotals;
  private readonly seen: string[];
  private readonly seenSet: Set<string>;
  private readonly minutes: [number, number, number][];
  private readonly warned: Set<string>;

  /** @param snapshot - a ledger's {@link snapshot}; what is not one starts empty. */
  constructor(snapshot?: unknown) {
    const state = readSnapshot(snapshot);
    this.totals = state.totals;
    this.seen = state.seen;
    this.seenSet = new Set(state.seen);
    this.minutes = state.minutes;
    this.warned = new Set(state.warned);
  }

  /**
   * Counts a reply unless its id was counted before.
   * @param costOf - the price book; a model it does not price adds to `unpricedTokens`.
   * @param now - epoch ms, the time of a record that has none.
   * @returns whether the record was counted.
   */
  add(record: UsageRecord, costOf: CostOf, now: number): boolean {
    if (record.replyId !== undefined) {
      if (this.seenSet.has(record.replyId)) return false;
      this.seenSet.add(record.replyId);
      this.seen.unshift(record.replyId);
      if (this.seen.length > MAX_REMEMBERED_REPLIES) this.seenSet.delete(this.seen.pop() as string);
    }
    const tokens = tokensOf(record);
    const cost = costOf(record);
    const t = this.totals;
    if (record.adjustment !== true) t.replies++;
    t.tokens += tokens;
    t.inputTokens += record.inputTokens;
    t.outputTokens += record.outputTokens;
    t.cacheCreationTokens += record.cacheCreationTokens;
    t.cacheReadTokens += record.cacheReadTokens;
    if (cost === undefined || !Number.isFinite(cost) || cost < 0) {
      t.unpricedTokens += tokens;
      const model = record.model ?? '(no model named)';
      if (!t.unpricedModels.includes(model) && t.unpricedModels.length < 8) t.unpricedModels.push(model);
    } else t.costUsd += cost;
    this.addToMinute(Math.floor((record.at ?? now) / 60_000), tokens, cost ?? 0);
    return true;
  }

  /** Tokens and dollars per minute over the last `minutes` whole minutes up to `now` (an average). */
  rate(minutes: number, now: number): { tokensPerMinute: number; costUsdPerMinute: number } {
    const last = Math.floor(now / 60_000);
    let tokens = 0;
    let cost = 0;
    for (const [minute, t, c] of this.minutes) {
      if (minute > last - minutes && minute <= last) {
        tokens += t;
        cost += c;
      }
    }
    return { tokensPerMinute: tokens / minutes, costUsdPerMinute: cost / minutes };
  }

  /** Whether the warning `key` was given; marks it given. */
  warnOnce(key: string): boolean {
    if (this.warned.has(key)) return false;
    this.warned.add(key);
    return true;
  }

  /** Forgets that the warning `key` was given (the rate fell back: the next rise warns again). */
  rearm(key: string): void {
    this.warned.delete(key);
  }

  /** The ledger as JSON. */
  snapshot(): SpendLedgerSnapshot {
    return {
      totals: { ...this.totals, unpricedModels: [...this.totals.unpricedModels] },
      seen: [...this.seen],
      minutes: this.minutes.map((m) => [...m] as [number, number, number]),
      warned: [...this.warned],
    };
  }

  private addToMinute(minute: number, tokens: number, cost: number): void {
    // Records may come out of order: find the minute, else insert it in order.
    let index = this.minutes.length;
    while (index > 0 && (this.minutes[index - 1] as [number, number, number])[0] > minute) index--;
    const slot = this.minutes[index - 1];
    if (slot !== undefined && slot[0] === minute) {
      slot[1] += tokens;
      slot[2] += cost;
    } else this.minutes.splice(index, 0, [minute, tokens, cost]);
    const newest = (this.minutes[this.minutes.length - 1] as [number, number, number])[0];
    while ((this.minutes[0] as [number, number, number])[0] <= newest - MAX_BURN_MINUTES)
      this.minutes.shift();
  }
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** The snapshot's state, each part that is not what it should be replaced by its empty value. */
function readSnapshot(value: unknown): SpendLedgerSnapshot {
  const s = (value !== null && typeof value === 'object' ? value : {}) as Partial<Record<string, unknown>>;
  const totals = emptyTotals();
  const given = (s.totals ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(totals) as (keyof SpendTotals)[]) {
    if (key === 'unpricedModels') {
      if (Array.isArray(given[key]))
        totals[key] = (given[key] as unknown[]).filter((m) => typeof m === 'string');
    } else if (isCount(given[key])) totals[key] = given[key];
  }
  const seen = Array.isArray(s.seen) ? s.seen.filter((id): id is string => typeof id === 'string') : [];
  const minutes = Array.isArray(s.minutes)
    ? s.minutes.filter(
        (m): m is [number, number, number] =>
          Array.isArray(m) && m.length === 3 && Number.isInteger(m[0]) && isCount(m[1]) && isCount(m[2]),
      )
    : [];
  minutes.sort((a, b) => a[0] - b[0]);
  const warned = Array.isArray(s.warned) ? s.warned.filter((w): w is string => typeof w === 'string') : [];
  return { totals, seen: seen.slice(0, MAX_REMEMBERED_REPLIES), minutes, warned };
}
