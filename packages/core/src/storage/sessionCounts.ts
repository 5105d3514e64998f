import { formatUsd } from '../kernel/formatUsd.js';
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
  spend: readonly { agent: string; tokens: number | string | null; cost_usd: number | string | null }[],
): SessionCounts {
  const byVerdict = Object.fromEntries(SESSION_VERDICTS.map((v) => [v, 0])) as Record<SessionVerdict, number>;
  for (const { verdict, count } of verdicts)
    if (verdict in byVerdict) byVerdict[verdict as SessionVerdict] += Number(count);
  const spendByAgent = spend.map((s) => ({
    agent: s.agent,
    tokens: Number(s.tokens ?? 0),
    costUsd: Number(s.cost_usd ?? 0),
    cost: formatUsd(Number(s.cost_usd ?? 0)),
  }));
  const costUsd = spendByAgent.reduce((sum, s) => sum + s.costUsd, 0);
  const tokens = spendByAgent.reduce((sum, s) => sum + s.tokens, 0);
  const spent =
    spendByAgent.length === 0
      ? ''
      : costUsd > 0
        ? formatUsd(costUsd)
        : `${tokens.toLocaleString('en-US')} tokens`;
  return { byVerdict, spendByAgent, spent };
}
