import type { SubagentVerdicts } from './subagentVerdicts.js';

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
   * Of the stops after the first, those that denied a call before it ran: a Codex session or a Gemini
   * CLI subagent goes on after its stop, and each repeat is denied (`2 more calls refused after the stop`).
   */
  deniedAfterStop: number;
  /**
   * The stops after the first found after their call ran (a session resumed after its stop, `claude
   * --resume`, and stopped again): how many, and the call the last fell at; `null` without one.
   */
  stoppedAgain: { times: number; lastCall: number | null } | null;
  /**
   * The first stop: its kind (a loop type, or the spend reason's key: the code `--json` and SQL
   * keep), its entry topic, the tool call it fell at, and its kind in words, what every door prints
   * (`budget reached`, `near-identical calls`: `spendReasonWords`, `loopKindWords`; `null` without a kind).
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
  /**
   * Its subagents' runs loopguard stopped, stopped on spend or nudged (each a row of its own): the
   * summary ends with them (`; 1 subagent stopped by loopguard`); all 0 for a subagent's run.
   */
  subagents: SubagentVerdicts;
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
  /**
   * Of a session's stops after the first, those that denied a call before it ran (each reader adds it,
   * for a hook session and a framework adapter's run: the view has no column for it); absent or `NULL`: none.
   */
  denied_after_stop?: number | string | null;
  /** Of a session's stops after the first, the others: found after their call ran (each reader adds it); absent or `NULL`: none. */
  stopped_again?: number | string | null;
  /** The call the last of those fell at (each reader adds it); absent: none. */
  last_stop_call?: number | string | null;
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
