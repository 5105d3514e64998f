/**
 * How many of a session's subagents' runs loopguard stepped in on, by their verdict: each is a run of
 * its own (its row, its verdict), and the session's sentence names them in every door (doors67).
 */
export interface SubagentVerdicts {
  /** Subagents loopguard stopped. */
  stopped: number;
  /** Subagents the spend guard stopped. */
  stopped_on_spend: number;
  /** Subagents nudged, never stopped. */
  nudged: number;
}

/**
 * One count of a session's subagents by verdict, as a reader selects it (`SELECT agent,
 * parent_session_id, verdict, count(*) AS n FROM agent_sessions … GROUP BY …`).
 * @example { agent: 'claude', parent_session_id: 'main', verdict: 'stopped', n: 1 }
 */
export interface SubagentVerdictRow {
  /** The agent the session and its subagents belong to. */
  agent: string;
  /** The session the subagents belong to. */
  parent_session_id: string;
  /** Their verdict. */
  verdict: string;
  /** How many (PostgreSQL's `count` is a string). */
  n: number | string;
}

/** A session with no subagent loopguard stepped in on. */
export const NO_SUBAGENTS: Readonly<SubagentVerdicts> = Object.freeze({
  stopped: 0,
  stopped_on_spend: 0,
  nudged: 0,
});

/**
 * The counts of one session's subagents among `rows` (a reader's, for a page of sessions).
 * @example subagentVerdictsOf(rows, 'claude', 'main'); // { stopped: 1, stopped_on_spend: 0, nudged: 0 }
 */
export function subagentVerdictsOf(
  rows: readonly SubagentVerdictRow[],
  agent: string,
  sessionId: string,
): SubagentVerdicts {
  const counts = { ...NO_SUBAGENTS };
  for (const row of rows)
    if (row.agent === agent && row.parent_session_id === sessionId && Object.hasOwn(counts, row.verdict))
      counts[row.verdict as keyof SubagentVerdicts] += Number(row.n);
  return counts;
}

/** What loopguard did to a subagent, by its run's verdict (those it did nothing to are not named). */
const WORDS: Readonly<Record<keyof SubagentVerdicts, string>> = {
  stopped: 'stopped by loopguard',
  stopped_on_spend: 'stopped on spend',
  nudged: 'nudged',
};

/**
 * `; 1 subagent stopped by loopguard, 2 subagents nudged`, or `''`: the end of a session's sentence.
 * @example subagentsText({ stopped: 1, stopped_on_spend: 0, nudged: 0 }); // '; 1 subagent stopped by loopguard'
 */
export function subagentsText(counts: Readonly<SubagentVerdicts>): string {
  const parts = (Object.keys(WORDS) as (keyof SubagentVerdicts)[]).flatMap((verdict) => {
    const n = counts[verdict];
    return n === 0 ? [] : [`${n} subagent${n === 1 ? '' : 's'} ${WORDS[verdict]}`];
  });
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}
