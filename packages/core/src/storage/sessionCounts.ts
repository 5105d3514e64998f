import { formatUsdTotal } from '../kernel/formatUsd.js';
import { SESSION_VERDICTS, type SessionVerdict } from './sessionView.js';

/**
 * Every stored session counted: by verdict, and what each agent spent (for `/metrics` and the
 * dashboard), with `cost` and `spent` as every door writes money (`formatUsd`).
 * @example { byVerdict: { running: 0, clean: 4, nudged: 1, stopped: 2, stopped_on_spend: 1 }, spendByAgent: [{ agent: 'claude', tokens: 120000, costUsd: 1.9, cost: '$1.90' }], spent: '$1.90' }
 */
export interface SessionCounts {
  /** Sessions by verdict (every verdict present, 0 when none). */
  byVerdict: Record<SessionVerdict, number>;
  /** What each agent spent, where a spend guard counted it; `cost` as every door writes it. */
  spendByAgent: { agent: string; tokens: number; costUsd: number; cost: string }[];
  /** All agents together: dollars when any was priced (`$0.0038`), else tokens (`120 tokens`); `''` when none was counted. */
  spent: string;
}

/**
 * {@link SessionCounts} from the grouped rows a reader selects.
 * @example sessionCountsOf([{ verdict: 'stopped', count: 2 }], []).byVerdict.stopped; // 2
 */
export function sessionCountsOf(
  verdicts: readonly { verdict: string; count: number | string }[],
  spend: readonly SpendByAgentRow[],
): SessionCounts {
  const byVerdict = Object.fromEntries(SESSION_VERDICTS.map((v) => [v, 0])) as Record<SessionVerdict, number>;
  for (const { verdict, count } of verdicts)
    if (verdict in byVerdict) byVerdict[verdict as SessionVerdict] += Number(count);
  const nearCap = spend.map(nearCapParts);
  const spendByAgent = spend.map((s, i) => ({
    agent: s.agent,
    tokens: Number(s.tokens ?? 0),
    costUsd: Number(s.cost_usd ?? 0),
    cost: formatUsdTotal(Number(s.cost_usd ?? 0), nearCap[i] ?? []),
  }));
  const costUsd = spendByAgent.reduce((sum, s) => sum + s.costUsd, 0);
  const tokens = spendByAgent.reduce((sum, s) => sum + s.tokens, 0);
  const spent =
    spendByAgent.length === 0
      ? ''
      : costUsd > 0
        ? formatUsdTotal(costUsd, nearCap.flat())
        : `${tokens.toLocaleString('en-US')} tokens`;
  return { byVerdict, spendByAgent, spent };
}

/**
 * What an agent's sessions spent, as a reader groups them for {@link sessionCountsOf}.
 * @example { agent: 'gemini', tokens: 52000, cost_usd: 0.504, near_cap: '[[0.504,0.5]]' }
 */
export interface SpendByAgentRow {
  /** The door. */
  agent: string;
  /** Its sessions' tokens (text on PostgreSQL). */
  tokens: number | string | null;
  /** Its sessions' dollars of priced models (text on PostgreSQL). */
  cost_usd: number | string | null;
  /**
   * Its sessions whose dollars lie within a cent of their dollar cap, `[spent, cap]` each (a JSON
   * array: text in SQLite, parsed on PostgreSQL; `NULL` or absent: none): only beside such a cap is
   * an amount written with more than its own decimals (`formatUsd`), which the total then keeps.
   */
  near_cap?: string | ReadonlyArray<readonly [number | string, number | string]> | null;
}

/** The `near_cap` pairs of a row as `formatUsdTotal` reads them. */
function nearCapParts(row: SpendByAgentRow): { amount: number; beside: number }[] {
  const pairs = typeof row.near_cap === 'string' ? JSON.parse(row.near_cap) : (row.near_cap ?? []);
  return (pairs as Array<[number | string, number | string]>).map(([amount, beside]) => ({
    amount: Number(amount),
    beside: Number(beside),
  }));
}
