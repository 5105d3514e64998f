import { type Clock, InvalidInputError, systemClock } from '@loopguard/core';
import { assertNonEmptyString } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';
import { type AgentProcess, agentProcessState, isAncestorProcess } from './agentProcess.js';
import { type BusyRetryPolicy, DEFAULT_BUSY_RETRY, runStorageOp } from './busyRetry.js';
import { immediateTransaction } from './immediateTransaction.js';

/** The agent CLIs `loopguard hook` guards. */
export type HookAgent = 'claude' | 'gemini' | 'codex';

/** The agents `hook_sessions.agent` accepts. */
const HOOK_AGENTS: readonly HookAgent[] = ['claude', 'gemini', 'codex'];

/** Which session a row is: the CLI, its `session_id`, and the project directory it runs in. */
export interface HookSessionKey {
  /** The CLI. */
  agent: HookAgent;
  /** Its session id. */
  sessionId: string;
  /** The project the session runs in. */
  projectDir: string;
}

/** One guarded session, as stored in `hook_sessions`. */
export interface HookSessionRecord {
  /**
   * The step detector's snapshot, as the caller wrote it (JSON text). Stored as given, unchecked
   * since schema version 9: whoever reads it validates it (the file is anyone's to edit).
   */
  snapshot: string;
  /** The last result of the session's recent actions, as the caller wrote it (JSON text); as {@link snapshot}. */
  lastResults: string;
  /** Steps observed. */
  steps: number;
  /** Tool calls the session made that the hook saw run (a call denied before it ran is not one). */
  toolCalls: number;
  /** The session a subagent's run belongs to; `null` for a main thread. */
  parentSessionId: string | null;
  /** The subagent's type (Claude Code's `agent_type`); `null` for a main thread. */
  agentType: string | null;
  /** Nudges given. */
  nudges: number;
  /** Stops made. */
  stops: number;
  /** The per-session switch: `false` makes the hook stay silent for this session. */
  enabled: boolean;
  /** Epoch ms of the first event. */
  createdAt: number;
  /** Epoch ms of the last change. */
  updatedAt: number;
}

/**
 * A session without its detector snapshot: what {@link SqliteHookSessionStore.peek} reads for a
 * caller that needs its switch or its counts, not the detector's state.
 */
export type HookSessionSummary = Omit<HookSessionRecord, 'snapshot'>;

/** What a {@link SqliteHookSessionStore.update} callback returns. */
export interface HookSessionUpdate<T> {
  /** The session's new state; `undefined` leaves the row as it was (nothing written). */
  next?: Omit<HookSessionRecord, 'createdAt' | 'updatedAt'>;
  /** What `update` returns. */
  result: T;
}

/** Options of {@link SqliteHookSessionStore}. */
export interface SqliteHookSessionStoreOptions {
  /** An open connection whose schema is version 8 or later (`openLoopGuardDatabase` migrates it). */
  db: BetterSqlite3.Database;
  /** Source of `created_at` / `updated_at`. @default systemClock */
  clock?: Clock;
  /** What to do when `SQLITE_BUSY` escapes the busy timeout. @default { retries: 5, initialDelayMs: 25 } */
  busyRetry?: BusyRetryPolicy;
  /**
   * The agent CLI's process this caller runs for (`hookAgentProcess()`), written with every update
   * as `agent_process` unless the one recorded is another process still running (`hookAgentProcess`
   * finds it past the shells and launchers started for one call, so it is known from the session's
   * first event). A function is called at the first write only, and once: a caller that
   * writes nothing (a hook call answered from the session's memory) never reads `/proc`.
   * @default null (not known)
   */
  agentProcess?: AgentProcess | null | (() => AgentProcess | null);
}

interface SessionRow extends SummaryRow {
  snapshot: string;
  /** Absent from a database of schema 8 to 12. */
  agent_process?: string | null;
}

interface SummaryRow {
  last_results: string;
  steps: number;
  tool_calls: number;
  parent_session_id: string | null;
  agent_type: string | null;
  nudges: number;
  stops: number;
  enabled: number;
  created_at: number;
  updated_at: number;
}

/**
 * The sessions `loopguard hook` guards. Every hook call is a new process; {@link update} reads a
 * session and writes its new state in one `BEGIN IMMEDIATE` transaction, so hook processes of one
 * session running at once (parallel tool calls) serialise on SQLite's write lock and none loses
 * an update.
 *
 * @example
 * const store = new SqliteHookSessionStore({ db: openLoopGuardDatabase('.loopguard/state.db').db });
 * store.update({ agent: 'claude', sessionId: 's1', projectDir: '/repo' }, (session) => ({ result: session }));
 */
export class SqliteHookSessionStore {
  private readonly db: BetterSqlite3.Database;
  private readonly clock: Clock;
  private readonly busyRetry: Readonly<BusyRetryPolicy>;
  private readonly selectStmt: BetterSqlite3.Statement;
  private peekStmt: BetterSqlite3.Statement | undefined;
  /** `null`: a database of schema 8 to 12, without `agent_process`. */
  private processStmt: BetterSqlite3.Statement | null | undefined;
  private readonly upsertStmt: BetterSqlite3.Statement;
  private agentProcess: AgentProcess | null | (() => AgentProcess | null);

  /** @param options - see {@link SqliteHookSessionStoreOptions}. */
  constructor(options: SqliteHookSessionStoreOptions) {
    this.db = options.db;
    this.clock = options.clock ?? systemClock;
    this.busyRetry = options.busyRetry ?? DEFAULT_BUSY_RETRY;
    this.agentProcess = options.agentProcess ?? null;
    const withProcess = (statements: (column: string) => [string, string]) => {
      try {
        return statements(', agent_process').map((sql) => this.db.prepare(sql));
      } catch (error) {
        // a database of schema 8 to 12 (no `agent_process`), as the option allows: not written
        if (!String(error).includes('agent_process')) throw error;
        return statements('').map((sql) => this.db.prepare(sql.replace(', @agentProcess', '')));
      }
    };
    [this.selectStmt, this.upsertStmt] = withProcess((column) => [
      `SELECT snapshot, last_results, steps, tool_calls, parent_session_id, agent_type, nudges, stops, enabled, created_at, updated_at${column} FROM hook_sessions WHERE agent = ? AND session_id = ? AND project_dir = ?`,
      `INSERT INTO hook_sessions (agent, session_id, project_dir, snapshot, last_results, steps, tool_calls, parent_session_id, agent_type, nudges, stops, enabled, created_at, updated_at${column})
       VALUES (@agent, @sessionId, @projectDir, @snapshot, @lastResults, @steps, @toolCalls, @parentSessionId, @agentType, @nudges, @stops, @enabled, @now, @now, @agentProcess)
       ON CONFLICT (agent, session_id, project_dir) DO UPDATE SET snapshot = excluded.snapshot,
         last_results = excluded.last_results, steps = excluded.steps, tool_calls = excluded.tool_calls,
         parent_session_id = excluded.parent_session_id, agent_type = excluded.agent_type, nudges = excluded.nudges,
         stops = excluded.stops, enabled = excluded.enabled, updated_at = excluded.updated_at${column === '' ? '' : ', agent_process = excluded.agent_process'}`,
    ]) as [BetterSqlite3.Statement, BetterSqlite3.Statement];
  }

  /** The session, or `null` when it has no row. */
  get(key: HookSessionKey): HookSessionRecord | null {
    assertKey(key);
    return runStorageOp(this.db, this.busyRetry, 'SqliteHookSessionStore.get', () =>
      recordOf(this.selectStmt.get(key.agent, key.sessionId, key.projectDir) as SessionRow | undefined),
    );
  }

  /**
   * The session without its snapshot, or `null` when it has no row. A long session's row is mostly
   * its snapshot (hundreds of kilobytes): a caller that reads only the switch or the counts (every
   * hook call reads `enabled` before judging) does not copy it out of the database.
   */
  peek(key: HookSessionKey): HookSessionSummary | null {
    assertKey(key);
    this.peekStmt ??= this.db.prepare(
      'SELECT last_results, steps, tool_calls, parent_session_id, agent_type, nudges, stops, enabled, created_at, updated_at FROM hook_sessions WHERE agent = ? AND session_id = ? AND project_dir = ?',
    );
    const statement = this.peekStmt;
    return runStorageOp(this.db, this.busyRetry, 'SqliteHookSessionStore.peek', () => {
      const row = statement.get(key.agent, key.sessionId, key.projectDir) as SummaryRow | undefined;
      return row === undefined ? null : summaryOf(row);
    });
  }

  /**
   * The agent process recorded for the session when it is not this caller's and still runs: another
   * agent CLI process is sending events under the session's id (the model's `claude -p --resume
   * <id>` or `--session-id <id>` of a session that is running), which must not be taken for the
   * session (trust50). `null` when it is this caller's or one of its ancestors (the model's CLI
   * resuming its own session in a child; a subreaper recorded when a CLI died during a hook call),
   * gone, not known here, when this caller's is not known, or in a database of schema 8 to 12 (no
   * `agent_process`). Reads `/proc` (this caller's process, once; the recorded one's state and this
   * caller's ancestors when it differs).
   */
  otherLiveProcess(key: HookSessionKey): string | null {
    assertKey(key);
    let statement = this.processStmt;
    if (statement === undefined) {
      try {
        statement = this.db.prepare(
          'SELECT agent_process FROM hook_sessions WHERE agent = ? AND session_id = ? AND project_dir = ?',
        );
      } catch (error) {
        if (!String(error).includes('agent_process')) throw error;
        statement = null; // schema 8 to 12
      }
      this.processStmt = statement;
    }
    if (statement === null) return null;
    const prepared = statement;
    const recorded = runStorageOp(this.db, this.busyRetry, 'SqliteHookSessionStore.otherLiveProcess', () => {
      const row = prepared.get(key.agent, key.sessionId, key.projectDir) as
        | { agent_process: string | null }
        | undefined;
      return row?.agent_process ?? null;
    });
    if (recorded === null) return null;
    if (typeof this.agentProcess === 'function') this.agentProcess = this.agentProcess();
    const ours = this.agentProcess?.id ?? null;
    return ours !== null && heldByAnother(recorded, ours) && !isAncestorProcess(recorded, ours)
      ? recorded
      : null;
  }

  /**
   * Reads the session (`null` when new), hands it to `change`, and writes what `change` returns,
   * in one `BEGIN IMMEDIATE` transaction ({@link immediateTransaction}). Writes `change` makes on the same connection (context
   * entries) commit or roll back with it.
   * @throws whatever `change` throws (nothing is written then); StorageError when SQLite fails.
   */
  update<T>(key: HookSessionKey, change: (session: HookSessionRecord | null) => HookSessionUpdate<T>): T {
    assertKey(key);
    return runStorageOp(this.db, this.busyRetry, 'SqliteHookSessionStore.update', () =>
      immediateTransaction(this.db, () => {
        const row = this.selectStmt.get(key.agent, key.sessionId, key.projectDir) as SessionRow | undefined;
        const { next, result } = change(recordOf(row));
        if (next !== undefined) {
          const now = this.clock.now();
          if (typeof this.agentProcess === 'function') this.agentProcess = this.agentProcess();
          const agentProcess = sessionProcess(row?.agent_process ?? null, this.agentProcess?.id ?? null);
          this.upsertStmt.run({ ...key, ...next, enabled: next.enabled ? 1 : 0, now, agentProcess });
        }
        return result;
      }),
    );
  }
}

/**
 * The session's agent process after an event from `ours`: the one recorded while it runs on (a
 * second CLI process on the same session, such as the model's `claude -p --resume <its id>`, must
 * not make the session read ended when it exits, trust49), else `ours` (a session resumed in a new
 * process once the first is gone follows it; one whose process is not known here takes it too).
 */
function sessionProcess(recorded: string | null, ours: string | null): string | null {
  return recorded !== null && heldByAnother(recorded, ours) ? recorded : ours;
}

/** Whether the process `recorded` names is not `ours` and is still running (see {@link agentProcessState}). */
function heldByAnother(recorded: string, ours: string | null): boolean {
  return recorded !== ours && agentProcessState(recorded) === 'running';
}

function assertKey(key: HookSessionKey): void {
  if (!HOOK_AGENTS.includes(key.agent)) {
    throw new InvalidInputError(
      `key.agent must be one of ${HOOK_AGENTS.map((a) => `"${a}"`).join(', ')}, got ${JSON.stringify(key.agent)}`,
    );
  }
  assertNonEmptyString(key.sessionId, 'key.sessionId');
  assertNonEmptyString(key.projectDir, 'key.projectDir');
}

function recordOf(row: SessionRow | undefined): HookSessionRecord | null {
  return row === undefined ? null : { snapshot: row.snapshot, ...summaryOf(row) };
}

function summaryOf(row: SummaryRow): HookSessionSummary {
  return {
    lastResults: row.last_results,
    steps: row.steps,
    toolCalls: row.tool_calls,
    parentSessionId: row.parent_session_id,
    agentType: row.agent_type,
    nudges: row.nudges,
    stops: row.stops,
    enabled: row.enabled === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
