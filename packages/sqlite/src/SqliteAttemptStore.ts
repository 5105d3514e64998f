import {
  type Attempt,
  type AttemptStore,
  type AttemptSummary,
  InvalidInputError,
  type TaskStatus,
} from '@loopguard/core';
import {
  assertFiniteNumber,
  assertNonEmptyString,
  describeValue,
  isSealedAttempt,
  validateAttemptInput as validateAttempt,
} from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';
import { type BusyRetryPolicy, DEFAULT_BUSY_RETRY, runStorageOp } from './busyRetry.js';
import { toStorageError } from './sqliteErrors.js';

/**
 * Options of {@link SqliteAttemptStore}.
 * @example
 * new SqliteAttemptStore({ db }); // db migrated with migrate(db)
 */
export interface SqliteAttemptStoreOptions {
  /**
   * An open better-sqlite3 connection whose schema is current (see `migrate`). Share it with the
   * `SqliteStateMachine` so that its `transaction` covers attempt writes.
   */
  db: BetterSqlite3.Database;
  /**
   * What to do when `SQLITE_BUSY` escapes the connection's busy timeout.
   * @default { retries: 5, initialDelayMs: 25 }
   */
  busyRetry?: BusyRetryPolicy;
}

interface AttemptRow {
  task_id: string;
  timestamp: number;
  status: TaskStatus;
  blockers: string;
  completed_work: string;
  session_id: string;
}

interface SummaryRow {
  task_id: string;
  attempt_count: number;
  last_attempt: number;
}

function attemptOf(row: AttemptRow): Attempt {
  return Object.freeze({
    taskId: row.task_id,
    timestamp: row.timestamp,
    status: row.status,
    blockers: Object.freeze(JSON.parse(row.blockers) as string[]),
    completedWork: Object.freeze(JSON.parse(row.completed_work) as string[]),
    sessionId: row.session_id,
  });
}

function assertLimit(value: unknown, name: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidInputError(`${name} must be a non-negative integer, got ${describeValue(value)}`);
  }
}

/**
 * The {@link AttemptStore} on SQLite (table `attempts`). `append` is durable when it returns
 * (one autocommit `INSERT`, or part of the enclosing `stateMachine.transaction`). Returned
 * attempts are frozen. Attempts have no foreign key to `tasks`: the detector records attempts for
 * task ids the state machine may not know.
 *
 * @example
 * const { attemptStore, stateMachine } = openLoopGuardDatabase('loopguard.db');
 * const detector = new LoopDetector(stateMachine, { attemptStore });
 */
export class SqliteAttemptStore implements AttemptStore {
  private readonly db: BetterSqlite3.Database;
  private readonly busyRetry: Readonly<BusyRetryPolicy>;
  private readonly insertStmt: BetterSqlite3.Statement<unknown[]>;
  private readonly listSinceStmt: BetterSqlite3.Statement<[string, number], AttemptRow>;
  private readonly clearStmt: BetterSqlite3.Statement<[string]>;
  private readonly pruneStmt: BetterSqlite3.Statement<[number, number]>;
  private readonly summarizeStmt: BetterSqlite3.Statement<[number], SummaryRow>;
  private readonly insertMany: BetterSqlite3.Transaction<(attempts: readonly Attempt[]) => void>;

  /**
   * @param options - see {@link SqliteAttemptStoreOptions}.
   * @throws StorageError `storage_unavailable` when the database lacks the loopguard schema.
   */
  constructor(options: SqliteAttemptStoreOptions) {
    this.db = options.db;
    this.busyRetry = options.busyRetry ?? DEFAULT_BUSY_RETRY;
    try {
      this.insertStmt = this.db.prepare(
        'INSERT INTO attempts (task_id, timestamp, status, blockers, completed_work, session_id) VALUES (?, ?, ?, ?, ?, ?)',
      );
      this.listSinceStmt = this.db.prepare(
        'SELECT task_id, timestamp, status, blockers, completed_work, session_id FROM attempts' +
          ' WHERE task_id = ? AND timestamp >= ? ORDER BY timestamp, id',
      );
      this.clearStmt = this.db.prepare('DELETE FROM attempts WHERE task_id = ?');
      this.pruneStmt = this.db.prepare(
        'DELETE FROM attempts WHERE id IN (SELECT id FROM attempts WHERE timestamp < ? ORDER BY timestamp LIMIT ?)',
      );
      this.summarizeStmt = this.db.prepare(
        'SELECT task_id, count(*) AS attempt_count, max(timestamp) AS last_attempt FROM attempts' +
          ' WHERE timestamp >= ? GROUP BY task_id',
      );
    } catch (error) {
      throw toStorageError(
        error,
        this.db.name,
        'SqliteAttemptStore: preparing statements (is the schema migrated?)',
      );
    }
    this.insertMany = this.db.transaction((attempts: readonly Attempt[]) => {
      for (const attempt of attempts) this.insert(attempt);
    });
  }

  append(attempt: Attempt): void {
    // an attempt built by the detector was validated there, once
    if (!isSealedAttempt(attempt)) validateAttempt(attempt, 'attempt');
    runStorageOp(this.db, this.busyRetry, 'SqliteAttemptStore.append', () => this.insert(attempt));
  }

  appendMany(attempts: readonly Attempt[]): void {
    if (!Array.isArray(attempts)) {
      throw new InvalidInputError(`attempts must be an array of attempts, got ${describeValue(attempts)}`);
    }
    attempts.forEach((attempt, i) => {
      if (!isSealedAttempt(attempt)) validateAttempt(attempt, `attempts[${i}]`);
    });
    if (attempts.length === 0) return;
    runStorageOp(this.db, this.busyRetry, 'SqliteAttemptStore.appendMany', () =>
      this.insertMany.immediate(attempts),
    );
  }

  listSince(taskId: string, since: number): Attempt[] {
    assertNonEmptyString(taskId, 'taskId');
    assertFiniteNumber(since, 'since');
    return runStorageOp(this.db, this.busyRetry, 'SqliteAttemptStore.listSince', () =>
      this.listSinceStmt.all(taskId, since).map(attemptOf),
    );
  }

  clear(taskId: string): number {
    assertNonEmptyString(taskId, 'taskId');
    return runStorageOp(
      this.db,
      this.busyRetry,
      'SqliteAttemptStore.clear',
      () => this.clearStmt.run(taskId).changes,
    );
  }

  prune(before: number, limit: number): number {
    assertFiniteNumber(before, 'before');
    assertLimit(limit, 'limit');
    if (limit === 0) return 0;
    return runStorageOp(
      this.db,
      this.busyRetry,
      'SqliteAttemptStore.prune',
      () => this.pruneStmt.run(before, limit).changes,
    );
  }

  summarize(since: number): Map<string, AttemptSummary> {
    assertFiniteNumber(since, 'since');
    const rows = runStorageOp(this.db, this.busyRetry, 'SqliteAttemptStore.summarize', () =>
      this.summarizeStmt.all(since),
    );
    const summary = new Map<string, AttemptSummary>();
    for (const row of rows)
      summary.set(row.task_id, { attemptCount: row.attempt_count, lastAttempt: row.last_attempt });
    return summary;
  }

  private insert(attempt: Attempt): void {
    this.insertStmt.run(
      attempt.taskId,
      attempt.timestamp,
      attempt.status,
      JSON.stringify(attempt.blockers),
      JSON.stringify(attempt.completedWork),
      attempt.sessionId,
    );
  }
}
