import { InvalidInputError } from '@loopguard/core';
import {
  assertNonEmptyString,
  validateIterationCheckpointInput,
  validateIterationRecordInput,
  validateIterationSessionInput,
  validateSessionEnd,
} from '@loopguard/core/internal';
import type {
  IterationCheckpoint,
  IterationCheckpointInput,
  IterationRecord,
  IterationRecordInput,
  IterationSessionInput,
  IterationSessionRecord,
  IterationSessionStatus,
  IterationStore,
} from '@loopguard/core/iteration';
import type { IterationConfig, ValidationFlag, ValidationResult } from '@loopguard/core/seeds';
import type BetterSqlite3 from 'better-sqlite3';
import { type BusyRetryPolicy, DEFAULT_BUSY_RETRY, runStorageOp } from './busyRetry.js';
import { toStorageError } from './sqliteErrors.js';

/** Options of {@link SqliteIterationStore}. */
export interface SqliteIterationStoreOptions {
  /**
   * An open better-sqlite3 connection whose schema is current (version 2 or later, see `migrate`).
   * Share it with the `SqliteStateMachine` so that its `transaction` covers the store's writes.
   */
  db: BetterSqlite3.Database;
  /**
   * What to do when `SQLITE_BUSY` escapes the connection's busy timeout.
   * @default { retries: 5, initialDelayMs: 25 }
   */
  busyRetry?: BusyRetryPolicy;
}

interface SessionRow {
  id: number;
  task_id: string;
  config: string;
  status: IterationSessionStatus;
  end_reason: string | null;
  created_at: number;
  updated_at: number;
}

interface CheckpointRow {
  id: number;
  session_id: number;
  task_id: string;
  iteration_number: number;
  trigger: IterationCheckpoint['trigger'];
  agent_context: string | null;
  created_at: number;
}

interface HistoryRow {
  session_id: number;
  iteration: number;
  task_id: string;
  passed: 0 | 1 | null;
  score: number | null;
  flags: string | null;
  output: string | null;
  completion_promise: string | null;
  recorded_at: number;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function sessionOf(row: SessionRow): IterationSessionRecord {
  return deepFreeze({
    id: String(row.id),
    taskId: row.task_id,
    config: JSON.parse(row.config) as IterationConfig,
    status: row.status,
    endReason: row.end_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

function checkpointOf(row: CheckpointRow): IterationCheckpoint {
  return deepFreeze({
    id: String(row.id),
    sessionId: String(row.session_id),
    taskId: row.task_id,
    iterationNumber: row.iteration_number,
    trigger: row.trigger,
    agentContext:
      row.agent_context === null ? null : (JSON.parse(row.agent_context) as Record<string, unknown>),
    createdAt: row.created_at,
  });
}

function recordOf(row: HistoryRow): IterationRecord {
  const validationResult: ValidationResult = {};
  if (row.passed !== null) validationResult.passed = row.passed === 1;
  if (row.score !== null) validationResult.score = row.score;
  if (row.flags !== null) validationResult.flags = JSON.parse(row.flags) as ValidationFlag[];
  return deepFreeze({
    sessionId: String(row.session_id),
    taskId: row.task_id,
    iteration: row.iteration,
    validationResult,
    output: row.output,
    completionPromise: row.completion_promise,
    recordedAt: row.recorded_at,
  });
}

/** Session ids are the rowids of `iteration_sessions`, as decimal strings. */
function rowIdOf(sessionId: string): number | undefined {
  return /^[1-9][0-9]{0,15}$/.test(sessionId) ? Number(sessionId) : undefined;
}

/**
 * The `IterationStore` port on SQLite: tables `iteration_sessions`, `iteration_checkpoints`
 * (append-only) and `iteration_history`, added by schema version 2. Session and checkpoint ids
 * are their rowids as strings. Writes are durable when they return (or part of the enclosing
 * `stateMachine.transaction` on the same connection). Returned objects are frozen.
 *
 * @example
 * const store = openLoopGuardDatabase('loopguard.db');
 * const sessions = new IterationSessions({
 *   stateMachine: store.stateMachine,
 *   store: new SqliteIterationStore({ db: store.db }),
 * });
 */
export class SqliteIterationStore implements IterationStore {
  private readonly db: BetterSqlite3.Database;
  private readonly busyRetry: Readonly<BusyRetryPolicy>;
  private readonly stmts: {
    insertSession: BetterSqlite3.Statement<unknown[]>;
    getSession: BetterSqlite3.Statement<[number], SessionRow>;
    listSessions: BetterSqlite3.Statement<[{ taskId: string | null; status: string | null }], SessionRow>;
    endSession: BetterSqlite3.Statement<unknown[]>;
    insertCheckpoint: BetterSqlite3.Statement<unknown[]>;
    getCheckpoint: BetterSqlite3.Statement<[number | bigint], CheckpointRow>;
    listCheckpoints: BetterSqlite3.Statement<[number], CheckpointRow>;
    latestCheckpoint: BetterSqlite3.Statement<[number], CheckpointRow>;
    insertHistory: BetterSqlite3.Statement<unknown[]>;
    getHistory: BetterSqlite3.Statement<[number, number], HistoryRow>;
    listHistory: BetterSqlite3.Statement<[number], HistoryRow>;
  };

  /**
   * @param options - see {@link SqliteIterationStoreOptions}.
   * @throws StorageError `storage_unavailable` when the database lacks the iteration tables (schema older than 2).
   */
  constructor(options: SqliteIterationStoreOptions) {
    this.db = options.db;
    this.busyRetry = options.busyRetry ?? DEFAULT_BUSY_RETRY;
    const sessionCols = 'id, task_id, config, status, end_reason, created_at, updated_at';
    const checkpointCols = 'id, session_id, task_id, iteration_number, trigger, agent_context, created_at';
    const historyCols =
      'session_id, iteration, task_id, passed, score, flags, output, completion_promise, recorded_at';
    try {
      this.stmts = {
        insertSession: this.db.prepare(
          'INSERT INTO iteration_sessions (task_id, config, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
        ),
        getSession: this.db.prepare(`SELECT ${sessionCols} FROM iteration_sessions WHERE id = ?`),
        listSessions: this.db.prepare(
          `SELECT ${sessionCols} FROM iteration_sessions WHERE (@taskId IS NULL OR task_id = @taskId) AND (@status IS NULL OR status = @status) ORDER BY id`,
        ),
        endSession: this.db.prepare(
          'UPDATE iteration_sessions SET status = ?, end_reason = ?, updated_at = ? WHERE id = ?',
        ),
        insertCheckpoint: this.db.prepare(
          'INSERT INTO iteration_checkpoints (session_id, task_id, iteration_number, trigger, agent_context, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        ),
        getCheckpoint: this.db.prepare(`SELECT ${checkpointCols} FROM iteration_checkpoints WHERE id = ?`),
        listCheckpoints: this.db.prepare(
          `SELECT ${checkpointCols} FROM iteration_checkpoints WHERE session_id = ? ORDER BY id`,
        ),
        latestCheckpoint: this.db.prepare(
          `SELECT ${checkpointCols} FROM iteration_checkpoints WHERE session_id = ? ORDER BY id DESC LIMIT 1`,
        ),
        insertHistory: this.db.prepare(
          `INSERT INTO iteration_history (${historyCols}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
        getHistory: this.db.prepare(
          `SELECT ${historyCols} FROM iteration_history WHERE session_id = ? AND iteration = ?`,
        ),
        listHistory: this.db.prepare(
          `SELECT ${historyCols} FROM iteration_history WHERE session_id = ? ORDER BY iteration`,
        ),
      };
    } catch (error) {
      throw toStorageError(
        error,
        this.db.name,
        'SqliteIterationStore: preparing statements (is the schema migrated to version 2?)',
      );
    }
  }

  createSession(input: IterationSessionInput): IterationSessionRecord {
    validateIterationSessionInput(input);
    return runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.createSession', () => {
      const { lastInsertRowid } = this.stmts.insertSession.run(
        input.taskId,
        JSON.stringify(input.config),
        'active',
        input.createdAt,
        input.createdAt,
      );
      return sessionOf(this.stmts.getSession.get(Number(lastInsertRowid)) as SessionRow);
    });
  }

  getSession(sessionId: string): IterationSessionRecord | undefined {
    assertNonEmptyString(sessionId, 'sessionId');
    const rowId = rowIdOf(sessionId);
    if (rowId === undefined) return undefined;
    const row = runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.getSession', () =>
      this.stmts.getSession.get(rowId),
    );
    return row === undefined ? undefined : sessionOf(row);
  }

  listSessions(filter: { taskId?: string; status?: IterationSessionStatus } = {}): IterationSessionRecord[] {
    return runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.listSessions', () =>
      this.stmts.listSessions
        .all({ taskId: filter.taskId ?? null, status: filter.status ?? null })
        .map(sessionOf),
    );
  }

  endSession(
    sessionId: string,
    status: Exclude<IterationSessionStatus, 'active'>,
    reason: string,
    at: number,
  ): IterationSessionRecord {
    const rowId = this.requireSession(sessionId, 'sessionId');
    validateSessionEnd(status, reason, at);
    return runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.endSession', () => {
      this.stmts.endSession.run(status, reason, at, rowId);
      return sessionOf(this.stmts.getSession.get(rowId) as SessionRow);
    });
  }

  addCheckpoint(input: IterationCheckpointInput): IterationCheckpoint {
    validateIterationCheckpointInput(input);
    const rowId = this.requireSession(input.sessionId, 'checkpoint.sessionId');
    return runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.addCheckpoint', () => {
      const { lastInsertRowid } = this.stmts.insertCheckpoint.run(
        rowId,
        input.taskId,
        input.iterationNumber,
        input.trigger,
        input.agentContext ? JSON.stringify(input.agentContext) : null,
        input.createdAt,
      );
      return checkpointOf(this.stmts.getCheckpoint.get(lastInsertRowid) as CheckpointRow);
    });
  }

  listCheckpoints(sessionId: string): IterationCheckpoint[] {
    assertNonEmptyString(sessionId, 'sessionId');
    const rowId = rowIdOf(sessionId);
    if (rowId === undefined) return [];
    return runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.listCheckpoints', () =>
      this.stmts.listCheckpoints.all(rowId).map(checkpointOf),
    );
  }

  latestCheckpoint(sessionId: string): IterationCheckpoint | undefined {
    assertNonEmptyString(sessionId, 'sessionId');
    const rowId = rowIdOf(sessionId);
    if (rowId === undefined) return undefined;
    const row = runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.latestCheckpoint', () =>
      this.stmts.latestCheckpoint.get(rowId),
    );
    return row === undefined ? undefined : checkpointOf(row);
  }

  appendHistory(input: IterationRecordInput): IterationRecord {
    validateIterationRecordInput(input);
    const rowId = this.requireSession(input.sessionId, 'record.sessionId');
    return runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.appendHistory', () => {
      if (this.stmts.getHistory.get(rowId, input.iteration) !== undefined) {
        throw new InvalidInputError(
          `record.iteration ${input.iteration} of session ${JSON.stringify(input.sessionId)} is already recorded`,
        );
      }
      const { passed, score, flags } = input.validationResult;
      this.stmts.insertHistory.run(
        rowId,
        input.iteration,
        input.taskId,
        passed === undefined ? null : passed ? 1 : 0,
        score ?? null,
        flags === undefined ? null : JSON.stringify(flags),
        input.output ?? null,
        input.completionPromise ?? null,
        input.recordedAt,
      );
      return recordOf(this.stmts.getHistory.get(rowId, input.iteration) as HistoryRow);
    });
  }

  listHistory(sessionId: string): IterationRecord[] {
    assertNonEmptyString(sessionId, 'sessionId');
    const rowId = rowIdOf(sessionId);
    if (rowId === undefined) return [];
    return runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore.listHistory', () =>
      this.stmts.listHistory.all(rowId).map(recordOf),
    );
  }

  private requireSession(sessionId: string, name: string): number {
    assertNonEmptyString(sessionId, name);
    const rowId = rowIdOf(sessionId);
    const exists =
      rowId !== undefined &&
      runStorageOp(this.db, this.busyRetry, 'SqliteIterationStore: reading a session', () =>
        this.stmts.getSession.get(rowId),
      ) !== undefined;
    if (!exists || rowId === undefined) {
      throw new InvalidInputError(`${name} ${JSON.stringify(sessionId)} is not a known iteration session`);
    }
    return rowId;
  }
}
