import type {
  Attempt,
  AttemptStore,
  AttemptSummary,
  AttemptSummaryPage,
  AttemptSummaryPageQuery,
} from '@loopguard/core';
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  assertFiniteNumber,
  assertLimit,
  assertNonEmptyString,
  attemptOf,
  attemptRowValues,
  checkStoredAttempt,
  checkStoredAttempts,
  validatePageQuery,
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

/** `[task_id, attempt count when every stored attempt is in the window (else null), last_attempt]`. */
type SummaryRow = [taskId: string, attemptCount: number | null, lastAttempt: number];

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
  private readonly listRecentStmt: BetterSqlite3.Statement<[number, number], AttemptRow>;
  private readonly clearStmt: BetterSqlite3.Statement<[string]>;
  private readonly pruneStmt: BetterSqlite3.Statement<[number, number]>;
  private readonly summarizeStmt: BetterSqlite3.Statement<[number, number], SummaryRow>;
  private readonly summaryPageStmt: BetterSqlite3.Statement<[number, number, string, number], SummaryRow>;
  private readonly summaryTotalStmt: BetterSqlite3.Statement<[number], { total: number }>;
  private readonly countSinceStmt: BetterSqlite3.Statement<[string, number], { n: number }>;
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
        `SELECT ${ATTEMPT_COLUMNS} FROM attempts` +
          ' WHERE task_id = ? AND timestamp >= ? ORDER BY timestamp, id',
      );
      this.listRecentStmt = this.db.prepare(
        `SELECT ${ATTEMPT_COLUMNS} FROM` +
          ' (SELECT * FROM attempts WHERE timestamp >= ? ORDER BY timestamp DESC, id DESC LIMIT ?)' +
          ' ORDER BY timestamp, id',
      );
      this.clearStmt = this.db.prepare('DELETE FROM attempts WHERE task_id = ?');
      this.pruneStmt = this.db.prepare(
        'DELETE FROM attempts WHERE id IN (SELECT id FROM attempts WHERE timestamp < ? ORDER BY timestamp LIMIT ?)',
      );
      // the per-task summary kept by triggers (migration 3): one row per task, not one per attempt.
      // Rows come back as arrays (`raw`), three columns: building 100,000 row objects costs more
      // than reading them. `+last_attempt` keeps the planner off the index: a scan in key order.
      const summaryColumns =
        'SELECT task_id, CASE WHEN first_attempt >= ? THEN attempt_count END, last_attempt FROM task_attempt_summary';
      this.summarizeStmt = this.db
        .prepare<[number, number], SummaryRow>(`${summaryColumns} WHERE +last_attempt >= ?`)
        .raw(true);
      this.summaryPageStmt = this.db
        .prepare<[number, number, string, number], SummaryRow>(
          `${summaryColumns} WHERE +last_attempt >= ? AND task_id > ? ORDER BY task_id LIMIT ?`,
        )
        .raw(true);
      this.summaryTotalStmt = this.db.prepare(
        'SELECT count(*) AS total FROM task_attempt_summary WHERE last_attempt >= ?',
      );
      this.countSinceStmt = this.db.prepare(
        'SELECT count(*) AS n FROM attempts WHERE task_id = ? AND timestamp >= ?',
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
    checkStoredAttempt(attempt, 'attempt');
    runStorageOp(this.db, this.busyRetry, 'SqliteAttemptStore.append', () => this.insert(attempt));
  }

  appendMany(attempts: readonly Attempt[]): void {
    checkStoredAttempts(attempts);
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

  listRecent(since: number, limit: number): Attempt[] {
    assertFiniteNumber(since, 'since');
    assertLimit(limit, 'limit');
    return runStorageOp(this.db, this.busyRetry, 'SqliteAttemptStore.listRecent', () =>
      this.listRecentStmt.all(since, limit).map(attemptOf),
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
    return runStorageOp(this.db, this.busyRetry, 'SqliteAttemptStore.summarize', () => {
      const summary = new Map<string, AttemptSummary>();
      for (const row of this.summarizeStmt.all(since, since)) summary.set(row[0], this.summaryOf(row, since));
      return summary;
    });
  }

  summarizePage(since: number, query: AttemptSummaryPageQuery): AttemptSummaryPage {
    assertFiniteNumber(since, 'since');
    const { limit, cursor } = validatePageQuery(query);
    return runStorageOp(this.db, this.busyRetry, 'SqliteAttemptStore.summarizePage', () =>
      this.db.transaction(() => {
        const rows = this.summaryPageStmt.all(since, since, cursor ?? '', limit + 1);
        const more = rows.length > limit;
        const page = more ? rows.slice(0, limit) : rows;
        const tasks = page.map((row): [string, AttemptSummary] => [row[0], this.summaryOf(row, since)]);
        const total = (this.summaryTotalStmt.get(since) as { total: number }).total;
        return { tasks, total, nextCursor: more ? (page[page.length - 1] as SummaryRow)[0] : null };
      })(),
    );
  }

  /** A summary row's window count: the stored count, unless some of the task's attempts expired unpruned. */
  private summaryOf([taskId, stored, lastAttempt]: SummaryRow, since: number): AttemptSummary {
    const attemptCount = stored ?? (this.countSinceStmt.get(taskId, since) as { n: number }).n;
    return { attemptCount, lastAttempt };
  }

  private insert(attempt: Attempt): void {
    this.insertStmt.run(...attemptRowValues(attempt));
  }
}
