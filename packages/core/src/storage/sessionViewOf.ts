import { formatUsd } from '../kernel/formatUsd.js';
import { loopKindWords } from './loopKindWords.js';
import { runStatusWords } from './runStatusWords.js';
import { sessionSummary, spendText } from './sessionSummary.js';
import { SESSION_VERDICTS, type SessionRow, type SessionVerdict, type SessionView } from './sessionView.js';
import { spendReasonWords } from './spendReasonWords.js';
import { NO_SUBAGENTS, type SubagentVerdicts } from './subagentVerdicts.js';

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

/**
 * The view of one `agent_sessions` row.
 * @example sessionViewOf(row).verdict; // 'stopped'
 */
export function sessionViewOf(row: SessionRow, subagents: SubagentVerdicts = NO_SUBAGENTS): SessionView {
  const verdict = (SESSION_VERDICTS as readonly string[]).includes(row.verdict)
    ? (row.verdict as SessionVerdict)
    : 'clean';
  const view: Omit<SessionView, 'summary' | 'spendSummary'> = {
    agent: row.agent,
    sessionId: row.session_id,
    projectDir: row.project_dir,
    parentSessionId: row.parent_session_id,
    agentType: row.agent_type,
    startedAt: Number(row.started_at),
    lastActive: Number(row.last_active),
    toolCalls: num(row.tool_calls),
    nudges: Number(row.nudges),
    stops: Number(row.stops),
    refusedCalls: Number(row.refused_calls ?? 0),
    ...laterStops(row),
    stop:
      row.stop_topic === 'loop_stop' || row.stop_topic === 'spend_stop'
        ? {
            topic: row.stop_topic,
            kind: row.stop_kind,
            call: num(row.stop_call),
            iteration: num(row.stop_iteration ?? null),
            at: Number(row.stopped_at),
            reason:
              row.stop_kind === null
                ? null
                : row.stop_topic === 'spend_stop'
                  ? spendReasonWords(row.stop_kind)
                  : loopKindWords(row.stop_kind),
          }
        : null,
    spend:
      row.tokens === null
        ? null
        : {
            tokens: Number(row.tokens),
            costUsd: Number(row.cost_usd ?? 0),
            // beside its cap, as the sentence writes it (`$0.504 of $0.50`): one amount in every field
            cost: formatUsd(Number(row.cost_usd ?? 0), num(row.budget_usd) ?? undefined),
            unpricedTokens: Number(row.unpriced_tokens ?? 0),
          },
    budget:
      row.budget_usd === null && row.budget_tokens === null
        ? null
        : { maxCostUsd: num(row.budget_usd), maxTokens: num(row.budget_tokens) },
    runStatus: row.run_status,
    runStatusText: row.run_status === null ? null : runStatusWords(row.run_status),
    runReason: row.run_reason ?? null,
    verdict,
    switchedOff: Number(row.switched_off ?? 0) === 1,
    subagents: { ...subagents },
  };
  return { ...view, summary: sessionSummary(view), spendSummary: spendText(view) };
}

/**
 * What a session's stops after its first were ({@link SessionView.deniedAfterStop}, `stoppedAgain`),
 * as its stop entries say (each reader finds them: a hook session's through its entries' task, a
 * framework adapter's by its `runId` and adapter; a spend stop's denials are entries the hooks count as
 * a stop only for Codex); only a session whose calls are counted and that was stopped has any. A
 * reader that does not tell says none: a count of stops cannot say whether each denied a call or came
 * after one ran (pg68: PostgreSQL's reader, which did not tell, read a framework's run guarded again
 * and stopped again as `1 more call refused after the stop`).
 */
function laterStops(row: SessionRow): Pick<SessionView, 'deniedAfterStop' | 'stoppedAgain'> {
  const stopped = row.stop_topic === 'loop_stop' || row.stop_topic === 'spend_stop';
  if (row.tool_calls === null || !stopped) return { deniedAfterStop: 0, stoppedAgain: null };
  const times = Number(row.stopped_again ?? 0);
  return {
    deniedAfterStop: Number(row.denied_after_stop ?? 0),
    stoppedAgain: times === 0 ? null : { times, lastCall: num(row.last_stop_call ?? null) },
  };
}
