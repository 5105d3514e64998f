import { formatUsd } from '../kernel/formatUsd.js';
import { runLimitWords, runStatusWords } from './runStatusWords.js';
import { spendReasonWords } from './spendReasonWords.js';
import { decodeStatusCursor, encodeStatusCursor } from './statusCursor.js';

/**
 * What loopguard did to a session, in one word (decided in one place: the store's `agent_sessions`
 * view, read through `readLiveSessions` by every door). `running`: active in the last 10 minutes, not
 * stopped, and neither said ended by its agent nor its agent's process known gone; `clean`: ended without a word from
 * loopguard; `nudged`: told it was looping, never stopped; `stopped`: ended by loopguard's loop stop
 * (or a `loopguard run`'s breaker or guards); `stopped_on_spend`: ended by the spend guard.
 */
export type SessionVerdict = 'running' | 'clean' | 'nudged' | 'stopped' | 'stopped_on_spend';

/** Every {@link SessionVerdict}, in the order a reader lists them. */
export const SESSION_VERDICTS: readonly SessionVerdict[] = [
  'running',
  'clean',
  'nudged',
  'stopped',
  'stopped_on_spend',
];

/**
 * One agent session as every door reports it: a Claude Code, Codex or Gemini CLI session through the
 * hooks, a `loopguard run`, or a framework adapter's run.
 * @example { agent: 'claude', sessionId: 'b3c…', projectDir: '/repo', verdict: 'stopped', toolCalls: 4, stop: { kind: 'repeated_action', call: 4, … }, … }
 */
export interface SessionView {
  /** `claude`, `codex`, `gemini`, `run`, or an adapter (`ai-sdk`, `claude-agent-sdk`, `openai-agents`, `langgraph`). */
  agent: string;
  /** The agent's session id (a subagent's `agent_id`), the run's id, or the adapter's `runId`. */
  sessionId: string;
  /** The project directory it ran in (`''` for an adapter's run). */
  projectDir: string;
  /** The session a subagent's run belongs to; `null` for a main thread. */
  parentSessionId: string | null;
  /** The subagent's type; `null` for a main thread. */
  agentType: string | null;
  /** First event, epoch ms. */
  startedAt: number;
  /** Last event, epoch ms. */
  lastActive: number;
  /** Tool calls that ran; `null` where the door does not count them (`loopguard run`, adapters). */
  toolCalls: number | null;
  /** Nudges loopguard gave the session. */
  nudges: number;
  /** Stops loopguard gave it (a session is stopped once; its subagents' runs count apart). */
  stops: number;
  /** Calls loopguard refused before they ran, the session going on (`call_refused` entries: the model's own calls against loopguard). */
  refusedCalls: number;
  /**
   * The first stop: its kind (a loop type, or the spend reason's key), its entry topic, the tool call
   * it fell at, and a spend stop's reason in words (`budget reached`; `null` for a loop's stop).
   */
  stop: {
    topic: 'loop_stop' | 'spend_stop';
    kind: string | null;
    call: number | null;
    /** A `loopguard run`'s iteration the stop fell in (its call counts that iteration's agent session); `null` for the others. */
    iteration: number | null;
    at: number;
    reason: string | null;
  } | null;
  /**
   * What the session spent, when a spend guard counted it; `costUsd` only of priced models, and
   * `cost` as every door writes it (`formatUsd`: `$0.0038`, never `$0.00`).
   */
  spend: { tokens: number; costUsd: number; cost: string; unpricedTokens: number } | null;
  /** The session's budget in force; `null` without one. */
  budget: { maxCostUsd: number | null; maxTokens: number | null } | null;
  /** A `loopguard run`'s own status (`completed`, `aborted`, …); `null` for the others. */
  runStatus: string | null;
  /** `runStatus` as a user reads it (`limit reached` for `budget_spent`); `null` for the others. */
  runStatusText: string | null;
  /** Why a `loopguard run` last stopped or paused (what `loopguard runs` prints); `null` for the others or while it runs. */
  runReason: string | null;
  /** What loopguard did to it, in one word: `running`, `clean`, `nudged`, `stopped`, `stopped_on_spend`. */
  verdict: SessionVerdict;
  /**
   * The user switched the session off (`UPDATE hook_sessions SET enabled = 0 …`, docs/hooks.md): its
   * calls after the switch are neither judged nor counted, and its summary says so first.
   */
  switchedOff: boolean;
  /** {@link sessionSummary} of the session: what every door prints. */
  summary: string;
  /**
   * What it spent, as its summary says it (`$0.41 of $0.50`, `$0.00 of $5.00 (and 120 tokens of
   * unpriced models)`, `12,400 tokens of 50,000`); `''` when nothing was counted and no budget is set.
   */
  spendSummary: string;
}

/**
 * A row of the `agent_sessions` view, as SQLite and PostgreSQL return it.
 * @example { agent: 'claude', session_id: 's1', verdict: 'stopped', stop_call: 4, … }
 */
export interface SessionRow {
  /** The door: `claude`, `codex`, `gemini`, `run` or an adapter. */
  agent: string;
  /** The session's id. */
  session_id: string;
  /** The project directory (`''` for an adapter's run). */
  project_dir: string;
  /** A subagent's parent session; `NULL` for a main thread. */
  parent_session_id: string | null;
  /** A subagent's type; `NULL` for a main thread. */
  agent_type: string | null;
  /** First event, epoch ms (PostgreSQL's `bigint` may come back as text). */
  started_at: number | string;
  /** Last event, epoch ms (text on PostgreSQL). */
  last_active: number | string;
  /** Tool calls that ran; `NULL` where the door does not count them. */
  tool_calls: number | null;
  /** Nudges (a count: text on PostgreSQL). */
  nudges: number | string;
  /** Stops (a count: text on PostgreSQL). */
  stops: number | string;
  /** Absent or `NULL` in a store that records no refusals (PostgreSQL): none. */
  refused_calls?: number | string | null;
  /** The first stop's entry topic (`loop_stop`, `spend_stop`); `NULL` without one. */
  stop_topic: string | null;
  /** The first stop's kind: a loop type or the spend reason's key. */
  stop_kind: string | null;
  /** The tool call the first stop fell at. */
  stop_call: number | null;
  /** When the first stop was written, epoch ms. */
  stopped_at: number | string | null;
  /** A run's stop entry's `iteration` (SQLite's reader adds it: the view has no column for it); absent: none. */
  stop_iteration?: number | string | null;
  /** Tokens a spend guard counted; `NULL` when none counted. */
  tokens: number | null;
  /** US dollars of the priced models counted. */
  cost_usd: number | null;
  /** Tokens of models without a price. */
  unpriced_tokens: number | null;
  /** The session's budget in dollars; `NULL` without one. */
  budget_usd: number | null;
  /** The session's budget in tokens; `NULL` without one. */
  budget_tokens: number | string | null;
  /** A `loopguard run`'s `runs.status`; `NULL` for the others. */
  run_status: string | null;
  /** A run's `runs.reason` (the reader joins it: the view has no column for it); absent: none. */
  run_reason?: string | null;
  /**
   * 1 where the user switched the session off (its hook row's `enabled = 0`, or its session's for a
   * subagent's run), as SQLite's reading connection adds it (`readLiveSessions`); absent, `NULL` or 0: on.
   */
  switched_off?: number | null;
  /** The view's verdict (a {@link SessionVerdict}). */
  verdict: string;
}

/**
 * What {@link StatusReader.sessionPage} reads: sessions, most recently active first.
 * @example { limit: 20, verdict: 'stopped' }
 */
export interface SessionPageQuery {
  /** Sessions per page (1..1000). */
  limit: number;
  /** The `nextCursor` of the previous page. @default undefined (the first page) */
  cursor?: string | undefined;
  /** Only sessions with this id (a session id may repeat across agents and projects). @default every session */
  sessionId?: string | undefined;
  /** Only this verdict. @default every verdict */
  verdict?: SessionVerdict | undefined;
}

/**
 * A page of sessions, most recently active first.
 * @example { sessions: [...], nextCursor: null }
 */
export interface SessionPage {
  /** The sessions of this page. */
  sessions: SessionView[];
  /** Pass as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

/**
 * What loopguard did to a session, in one line: the sentence `status`, the dashboard, the status line
 * and `/status` all print.
 * A session the user switched off says so first (`off for this session (switched off), no loop
 * found, 2 tool calls ran`): the calls after the switch are not among those counted (codex58).
 * A session that went on after its stop (Codex) says how many more calls were denied since.
 * @example sessionSummary(view); // 'stopped by loopguard at call 4 (repeated_action), 3 tool calls ran, 1 call refused, 1 nudge, $0.41 of $0.50'
 */
export function sessionSummary(view: Omit<SessionView, 'summary' | 'spendSummary'>): string {
  const parts = [
    view.switchedOff ? `off for this session (switched off), ${headline(view)}` : headline(view),
  ];
  // the calls that ran: a call denied before it ran (the stop's) is not one
  if (view.toolCalls !== null)
    parts.push(`${view.toolCalls} tool call${view.toolCalls === 1 ? '' : 's'} ran`);
  // a session that goes on after its stop (Codex: no reply ends its turn) has each repeat denied,
  // each a stop of its own: said, as scan says the calls denied after the stop (qa60)
  const deniedAfter = view.toolCalls === null || view.stop === null ? 0 : view.stops - 1;
  if (deniedAfter > 0)
    parts.push(`${deniedAfter} more call${deniedAfter === 1 ? '' : 's'} denied after the stop`);
  if (view.refusedCalls > 0)
    parts.push(`${view.refusedCalls} call${view.refusedCalls === 1 ? '' : 's'} refused`);
  if (view.nudges > 0 && view.verdict !== 'nudged')
    parts.push(`${view.nudges} nudge${view.nudges === 1 ? '' : 's'}`);
  const spent = spendText(view);
  if (spent !== '') parts.push(spent);
  return parts.join(', ');
}

/** The verdict as a user reads it: `stopped by loopguard at call 4 (repeated_action)`. */
function headline({
  verdict,
  stop,
  nudges,
  runStatus,
  runReason,
}: Omit<SessionView, 'summary' | 'spendSummary'>): string {
  // a run's call counts its iteration's agent session: the iteration says which (sessions60)
  const iteration = stop?.iteration == null ? '' : ` of iteration ${stop.iteration}`;
  const where = stop?.call == null ? '' : ` at call ${stop.call}${iteration}`;
  const said = stop?.reason ?? stop?.kind;
  const kind = said ? ` (${said})` : '';
  // an iteration stopped, the run went on to complete: the stop did not end it
  const then = runStatus === 'completed' ? ', then the run completed' : '';
  switch (verdict) {
    case 'stopped_on_spend':
      return `stopped on spend${where}${kind}`;
    case 'stopped':
      return stop === null
        ? `stopped by loopguard (${runStopWords(runStatus, runReason)})`
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
 * How a `loopguard run` stopped by its breaker or guards ended, in the user's words: `run paused`,
 * `run aborted` with why (its first line, as `loopguard runs` prints it, without the signal's name:
 * story56), and for
 * `budget_spent` without a spend stop (its iterations or time ran out: a spend stop reads `stopped
 * on spend`) what happened rather than the stored status's name (qa54).
 */
function runStopWords(runStatus: string | null, runReason: string | null): string {
  if (runStatus === 'budget_spent') return `run reached ${runLimitWords(runReason)}`;
  // the breaker writes its signal's name first (`no_file_changes: no files changed …`), after the
  // blocked task of an aborted run (`task T1 blocked: no_file_changes: …`): the words only
  const why = runReason
    ?.split('\n')[0]
    ?.replace(/^(task .*? blocked: )?[a-z]+(?:_[a-z]+)+: /, '$1')
    .trim();
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
function spendText({ spend, budget }: Pick<SessionView, 'spend' | 'budget'>): string {
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

/**
 * The view of one `agent_sessions` row.
 * @example sessionViewOf(row).verdict; // 'stopped'
 */
export function sessionViewOf(row: SessionRow): SessionView {
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
    stop:
      row.stop_topic === 'loop_stop' || row.stop_topic === 'spend_stop'
        ? {
            topic: row.stop_topic,
            kind: row.stop_kind,
            call: num(row.stop_call),
            iteration: num(row.stop_iteration ?? null),
            at: Number(row.stopped_at),
            reason:
              row.stop_topic === 'spend_stop' && row.stop_kind !== null
                ? spendReasonWords(row.stop_kind)
                : null,
          }
        : null,
    spend:
      row.tokens === null
        ? null
        : {
            tokens: Number(row.tokens),
            costUsd: Number(row.cost_usd ?? 0),
            cost: formatUsd(Number(row.cost_usd ?? 0)),
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
  };
  return { ...view, summary: sessionSummary(view), spendSummary: spendText(view) };
}

/**
 * Which session: its door and its id (a session id may repeat across doors).
 * @example { agent: 'claude', sessionId: '3f1c…' }
 */
export interface SessionKey {
  /** The door: `claude`, `codex`, `gemini`, `run` or an adapter. */
  agent: string;
  /** The session's id within that door. */
  sessionId: string;
}

/** The keyset position after a page's last session: its last activity and key. */
export type SessionCursorKey = [lastActive: number, agent: string, sessionId: string, projectDir: string];

/**
 * The position a `cursor` of {@link SessionPageQuery} names; `null` for the first page.
 * @throws InvalidInputError naming `cursor` when it is not one a reader made.
 */
export function sessionPageAfter(query: Pick<SessionPageQuery, 'cursor'>): SessionCursorKey | null {
  if (query.cursor === undefined) return null;
  return decodeStatusCursor(query.cursor, ['number', 'string', 'string', 'string']) as SessionCursorKey;
}

/**
 * A page from the rows read with `limit + 1` (the extra row says a next page exists).
 * @example sessionPageOf(rows, 20).nextCursor; // null on the last page
 */
export function sessionPageOf(rows: readonly SessionRow[], limit: number): SessionPage {
  const sessions = rows.slice(0, limit).map(sessionViewOf);
  const last = sessions.at(-1);
  return {
    sessions,
    nextCursor:
      rows.length > limit && last !== undefined
        ? encodeStatusCursor([last.lastActive, last.agent, last.sessionId, last.projectDir])
        : null,
  };
}

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
