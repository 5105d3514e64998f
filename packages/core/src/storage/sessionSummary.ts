import { formatUsd } from '../kernel/formatUsd.js';
import { resumeHint, runLimitWords, runReasonWords, runStatusWords } from './runStatusWords.js';
import type { SessionView } from './sessionView.js';
import { subagentsText } from './subagentVerdicts.js';

/**
 * What loopguard did to a session, in one line: the sentence `status`, the dashboard, the status line
 * and `/status` all print.
 * A session the user switched off says so first (`off for this session (switched off), no loop
 * found, 2 tool calls ran`): the calls after the switch are not among those counted (codex58).
 * A session that went on after its stop (Codex) says how many more calls were denied since; one
 * whose subagents loopguard stopped or nudged ends with them (`; 1 subagent stopped by loopguard`).
 * @example sessionSummary(view); // 'stopped by loopguard at call 4 (repeated call), 3 tool calls ran, 1 call refused, 1 nudge, $0.41 of $0.50'
 */
export function sessionSummary(view: Omit<SessionView, 'summary' | 'spendSummary'>): string {
  const parts = [
    view.switchedOff ? `off for this session (switched off), ${headline(view)}` : headline(view),
  ];
  // the calls that ran: a call denied before it ran (the stop's) is not one
  if (view.toolCalls !== null)
    parts.push(`${view.toolCalls} tool call${view.toolCalls === 1 ? '' : 's'} ran`);
  // a session that goes on after its stop (Codex: no reply ends its turn) has each repeat denied,
  // each a stop of its own: said, as scan says the calls refused after the stop (qa60); `refused`,
  // the word of the message the model got and of a `call refused` (doors71)
  const deniedAfter = view.deniedAfterStop;
  if (deniedAfter > 0)
    parts.push(`${deniedAfter} more call${deniedAfter === 1 ? '' : 's'} refused after the stop`);
  // a session resumed after its stop and stopped again: a stop, not a denial (sess64)
  const again = view.stoppedAgain;
  if (again !== null) {
    const at = again.lastCall === null ? '' : ` at call ${again.lastCall}`;
    parts.push(again.times === 1 ? `stopped again${at}` : `stopped ${again.times} more times, the last${at}`);
  }
  if (view.refusedCalls > 0)
    parts.push(`${view.refusedCalls} call${view.refusedCalls === 1 ? '' : 's'} refused`);
  if (view.nudges > 0 && view.verdict !== 'nudged')
    parts.push(`${view.nudges} nudge${view.nudges === 1 ? '' : 's'}`);
  const spent = spendText(view);
  if (spent !== '') parts.push(spent);
  // its subagents loopguard stepped in on, each a run of its own (doors67: every door, not the status line alone)
  return `${parts.join(', ')}${subagentsText(view.subagents)}`;
}

/** The verdict as a user reads it: `stopped by loopguard at call 4 (repeated call)`. */
function headline({
  verdict,
  stop,
  nudges,
  sessionId,
  runStatus,
  runReason,
}: Omit<SessionView, 'summary' | 'spendSummary'>): string {
  // a run's call counts its iteration's agent session: the iteration says which (sessions60)
  const iteration = stop?.iteration == null ? '' : ` of iteration ${stop.iteration}`;
  const where = stop?.call == null ? '' : ` at call ${stop.call}${iteration}`;
  const said = stop?.reason ?? stop?.kind;
  const kind = said ? ` (${said})` : '';
  const then = stop === null ? '' : runAfterStop(sessionId, runStatus, runReason);
  switch (verdict) {
    case 'stopped_on_spend':
      return `stopped on spend${where}${kind}`;
    case 'stopped':
      return stop === null
        ? `stopped by loopguard (${runStopWords(runStatus, runReason)})${resumeHint(sessionId, runStatus ?? '')}`
        : `stopped by loopguard${where}${kind}${then}`;
    case 'nudged':
      return `nudged ${nudges}×, not stopped`;
    case 'running':
      return 'running';
    case 'clean':
      return 'no loop found';
  }
}

/**
 * What a `loopguard run` did after an iteration's stop (the stop does not end a run): `, then the run
 * completed`; paused, aborted or interrupted, how to go on, as `run` said it then (polish66); a limit
 * reached, which. `''` while it runs, and for an agent's own session.
 */
function runAfterStop(runId: string, runStatus: string | null, runReason: string | null): string {
  switch (runStatus) {
    case null:
    case 'running':
      return '';
    case 'budget_spent':
      return `, then the run reached ${runLimitWords(runReason)}`;
    default:
      return `, then the run ${runStatusWords(runStatus)}${resumeHint(runId, runStatus)}`;
  }
}

/**
 * How a `loopguard run` stopped by its breaker or guards ended, in the user's words: `run paused`,
 * `run aborted` with why (its first line, as `loopguard runs` prints it, without the signal's name:
 * story56; the sentence then says how to go on, as after a mid-run stop: sess68), and for
 * `budget_spent` without a spend stop (its iterations or time ran out: a spend stop reads `stopped
 * on spend`) what happened rather than the stored status's name (qa54).
 */
function runStopWords(runStatus: string | null, runReason: string | null): string {
  if (runStatus === 'budget_spent') return `run reached ${runLimitWords(runReason)}`;
  const first = runReason?.split('\n')[0];
  const why = first === undefined ? undefined : runReasonWords(first).trim();
  return `run ${runStatusWords(runStatus ?? 'stopped')}${why ? `: ${shortReason(why)}` : ''}`;
}

/** A run's reason cut to one readable length: the sentence is one line in every door. */
function shortReason(reason: string): string {
  return reason.length <= MAX_REASON ? reason : `${reason.slice(0, MAX_REASON - 1)}…`;
}

/** Longest run reason the sentence quotes. */
const MAX_REASON = 120;

/**
 * `$0.41 of $0.50`, `12,400 tokens of 50,000`, `$0.41` or `''`; dollars beside tokens they could
 * not price say so (`$0.00 of $5.00 (and 120 tokens of unpriced models)`), never a bare `$0.00`.
 */
export function spendText({ spend, budget }: Pick<SessionView, 'spend' | 'budget'>): string {
  if (spend === null)
    return budget?.maxCostUsd == null
      ? ''
      : `${formatUsd(0, budget.maxCostUsd)} of ${formatUsd(budget.maxCostUsd, 0)}`;
  const unpriced =
    spend.unpricedTokens > 0
      ? ` (and ${spend.unpricedTokens.toLocaleString('en-US')} tokens of unpriced models)`
      : '';
  if (budget?.maxCostUsd != null)
    return `${formatUsd(spend.costUsd, budget.maxCostUsd)} of ${formatUsd(budget.maxCostUsd, spend.costUsd)}${unpriced}`;
  if (budget?.maxTokens != null)
    return `${spend.tokens.toLocaleString('en-US')} tokens of ${budget.maxTokens.toLocaleString('en-US')}`;
  return spend.costUsd > 0
    ? `${formatUsd(spend.costUsd)}${unpriced}`
    : `${spend.tokens.toLocaleString('en-US')} tokens`;
}
