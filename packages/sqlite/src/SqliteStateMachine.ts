import {
  type Clock,
  type ContextEntry,
  type ContextEntryInput,
  type ContextEntryQuery,
  InvalidInputError,
  type StateMachine,
  StorageError,
  systemClock,
  type Task,
  type TaskEvent,
  type TaskInput,
  type TaskStatus,
} from '@loopguard/core';
import {
  assertNonEmptyString,
  checkedClock,
  describeValue,
  ENTRY_COLUMNS,
  type EntryRow,
  type EventRow,
  entryOf,
  eventOf,
  type RunTally,
  runTallyUpsertSql,
  runTallyValues,
  TASK_COLUMNS,
  type TaskRow,
  taskOf,
  validateContextEntryInput,
  validateContextEntryQuery,
  validateRunTally,
  validateTaskFilter,
  validateTaskInput,
  validateTransition,
} from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';
import { type BusyRetryPolicy, DEFAULT_BUSY_RETRY, runStorageOp } from './busyRetry.js';
import { type EntryQueryShape, entryQuerySql, shapeKey, topicClassOf } from './contextEntrySql.js';
import { toStorageError } from './sqliteErrors.js';

/**
 * Options of {@link SqliteStateMachine}.
 * @example
 * new SqliteStateMachine({ db, clock: new ManualClock(0) }); // db migrated with migrate(db)
 */
export interface SqliteStateMachineOptions {
  /**
   * An open better-sqlite3 connection whose schema is current (see `migrate`). Share it with the
   * `SqliteAttemptStore` so that {@link SqliteStateMachine.transaction} covers attempt writes.
   */
  db: BetterSqlite3.Database;
  /** Source of task and context-entry timestamps. @default systemClock */
  clock?: Clock;
  /**
   * What to do when `SQLITE_BUSY` escapes the connection's busy timeout.
   * @default { retries: 5, initialDelayMs: 25 }
   */
  busyRetry?: BusyRetryPolicy;
}

/**
 * The {@link StateMachine} on SQLite: tables `tasks`, `task_events` (append-only),
 * `context_entries` and `context_entry_tasks`. Every write runs in a `BEGIN IMMEDIATE`
 * transaction (or a savepoint of the enclosing one); returned objects are frozen copies.
 *
 * @example
 * const { stateMachine } = openLoopGuardDatabase('loopguard.db');
 * stateMachine.upsertTask({ id: 'T1', title: 'Build the login page' });
 * stateMachine.transition('T1', 'in_progress', 'picked by autopilot');
 */
export class SqliteStateMachine implements StateMachine {
  private readonly db: BetterSqlite3.Database;
  private readonly clock: Clock;
  private readonly busyRetry: Readonly<BusyRetryPolicy>;
  private readonly getTaskStmt: BetterSqlite3.Statement<[string], TaskRow>;
  private readonly listTasksStmt: BetterSqlite3.Statement<[], TaskRow>;
  private readonly listTasksByStatusStmt: BetterSqlite3.Statement<[string], TaskRow>;
  private readonly insertTaskStmt: BetterSqlite3.Statement<unknown[]>;
  private readonly updateTaskStmt: BetterSqlite3.Statement<unknown[]>;
  private readonly transitionStmt: BetterSqlite3.Statement<unknown[]>;
  private readonly insertEventStmt: BetterSqlite3.Statement<unknown[]>;
  private readonly listEventsStmt: BetterSqlite3.Statement<[string], EventRow>;
  private readonly insertEntryStmt: BetterSqlite3.Statement<unknown[]>;
  private readonly getEntryStmt: BetterSqlite3.Statement<[number | bigint], EntryRow>;
  private readonly upsertRunStmt: BetterSqlite3.Statement<unknown[]>;
  private readonly entryQueries = new Map<string, BetterSqlite3.Statement<unknown[], EntryRow>>();
  private readonly runInTransaction: BetterSqlite3.Transaction<(fn: () => unknown) => unknown>;

  /**
   * @param options - see {@link SqliteStateMachineOptions}.
   * @throws StorageError `storage_unavailable` when the database lacks the loopguard schema.
   */
  constructor(options: SqliteStateMachineOptions) {
    this.db = options.db;
    this.clock = checkedClock(options.clock ?? systemClock, 'options.clock');
    this.busyRetry = options.busyRetry ?? DEFAULT_BUSY_RETRY;
    const taskColumns = TASK_COLUMNS;
    try {
      this.getTaskStmt = this.db.prepare(`SELECT ${taskColumns} FROM tasks WHERE id = ?`);
      this.listTasksStmt = this.db.prepare(`SELECT ${taskColumns} FROM tasks ORDER BY rowid`);
      this.listTasksByStatusStmt = this.db.prepare(
        `SELECT ${taskColumns} FROM tasks WHERE status IN (SELECT value FROM json_each(?)) ORDER BY rowid`,
      );
      this.insertTaskStmt = this.db.prepare(
        'INSERT INTO tasks (id, title, status, blocked_reason, metadata, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?, ?)',
      );
      this.updateTaskStmt = this.db.prepare(
        'UPDATE tasks SET title = ?, metadata = ?, updated_at = ? WHERE id = ?',
      );
      this.transitionStmt = this.db.prepare(
        'UPDATE tasks SET status = ?, blocked_reason = ?, updated_at = ? WHERE id = ?',
      );
      this.insertEventStmt = this.db.prepare(
        'INSERT INTO task_events (task_id, from_status, to_status, reason, timestamp) VALUES (?, ?, ?, ?, ?)',
      );
      this.listEventsStmt = this.db.prepare(
        'SELECT task_id, from_status, to_status, reason, timestamp FROM task_events WHERE task_id = ? ORDER BY id',
      );
      this.insertEntryStmt = this.db.prepare(
        'INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks, confidence, metadata)' +
          ' VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      this.getEntryStmt = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM context_entries WHERE id = ?`);
      this.upsertRunStmt = this.db.prepare(runTallyUpsertSql(() => '?'));
    } catch (error) {
      throw toStorageError(
        error,
        this.db.name,
        'SqliteStateMachine: preparing statements (is the schema migrated?)',
      );
    }
    this.runInTransaction = this.db.transaction((fn: () => unknown) => fn());
  }

  getTask(taskId: string): Task | undefined {
    assertNonEmptyString(taskId, 'taskId');
    const row = this.read('getTask', () => this.getTaskStmt.get(taskId));
    return row === undefined ? undefined : taskOf(row);
  }

  listTasks(filter: { statuses?: readonly TaskStatus[] } = {}): Task[] {
    const statuses = validateTaskFilter(filter);
    const rows = this.read('listTasks', () =>
      statuses === undefined
        ? this.listTasksStmt.all()
        : this.listTasksByStatusStmt.all(JSON.stringify(statuses)),
    );
    return rows.map(taskOf);
  }

  upsertTask(input: TaskInput): Task {
    input = validateTaskInput(input);
    const metadata = input.metadata === undefined ? undefined : JSON.stringify(input.metadata);
    return this.write('upsertTask', () => {
      const now = this.clock.now();
      const existing = this.getTaskStmt.get(input.id);
      if (existing === undefined) {
        const status = input.status ?? 'pending';
        this.insertTaskStmt.run(input.id, input.title ?? '', status, metadata ?? '{}', now, now);
        this.insertEventStmt.run(input.id, null, status, 'created', now);
      } else {
        this.updateTaskStmt.run(input.title ?? existing.title, metadata ?? existing.metadata, now, input.id);
      }
      return taskOf(this.getTaskStmt.get(input.id) as TaskRow);
    });
  }

  transition(taskId: string, status: TaskStatus, reason: string): Task {
    validateTransition(taskId, status, reason);
    return this.write('transition', () => {
      const existing = this.getTaskStmt.get(taskId);
      if (existing === undefined) {
        throw new StorageError('task_not_found', `transition: task ${JSON.stringify(taskId)} does not exist`);
      }
      const now = this.clock.now();
      this.transitionStmt.run(status, status === 'blocked' ? reason : null, now, taskId);
      this.insertEventStmt.run(taskId, existing.status, status, reason, now);
      return taskOf(this.getTaskStmt.get(taskId) as TaskRow);
    });
  }

  listTaskEvents(taskId: string): TaskEvent[] {
    assertNonEmptyString(taskId, 'taskId');
    return this.read('listTaskEvents', () => this.listEventsStmt.all(taskId)).map(eventOf);
  }

  addContextEntry(input: ContextEntryInput): ContextEntry {
    input = validateContextEntryInput(input);
    const relatedTasks = JSON.stringify(input.relatedTasks ?? []);
    const metadata = JSON.stringify(input.metadata ?? {});
    return this.write('addContextEntry', () => {
      const { lastInsertRowid } = this.insertEntryStmt.run(
        this.clock.now(),
        input.entryType,
        input.topic,
        input.content,
        relatedTasks,
        input.confidence ?? 1,
        metadata,
      );
      return entryOf(this.getEntryStmt.get(lastInsertRowid) as EntryRow);
    });
  }

  /** Keeps the run's one row in `adapter_runs` (see the port; docs/sql.md, "Sessions"). */
  recordRunTally(tally: RunTally): void {
    validateRunTally(tally);
    this.write('recordRunTally', () => {
      this.upsertRunStmt.run(...runTallyValues(tally));
    });
  }

  listContextEntries(query: ContextEntryQuery = {}): ContextEntry[] {
    validateContextEntryQuery(query);
    const { topics, taskId, since, limit } = query;
    if (topics !== undefined && topics.length === 0) return [];
    const shape: EntryQueryShape = {
      byTask: taskId !== undefined,
      topics: topics === undefined ? 'none' : topics.length === 1 ? 'one' : 'many',
      topicClass: topics === undefined ? 'mixed' : topicClassOf(topics),
      since: since !== undefined,
    };
    const params: unknown[] = [];
    if (taskId !== undefined) params.push(taskId);
    if (topics !== undefined) params.push(topics.length === 1 ? topics[0] : JSON.stringify(topics));
    if (since !== undefined) params.push(since);
    params.push(limit ?? -1);
    return this.read('listContextEntries', () => this.entryQuery(shape).all(...params)).map(entryOf);
  }

  /**
   * Runs `fn` in one `BEGIN IMMEDIATE` transaction on the shared connection (a savepoint when
   * already inside one): every write through this state machine and the `SqliteAttemptStore` on
   * the same connection commits together, or — when `fn` throws — none does. Writers in other
   * connections and processes wait for it (busy timeout, then retries), so a re-check made inside
   * `fn` holds until commit. `fn` must be synchronous.
   */
  transaction<T>(fn: () => T): T {
    if (typeof fn !== 'function')
      throw new InvalidInputError(`fn must be a function, got ${describeValue(fn)}`);
    return runStorageOp(
      this.db,
      this.busyRetry,
      'SqliteStateMachine.transaction',
      (started) =>
        this.runInTransaction.immediate(() => {
          started();
          return fn();
        }) as T,
    );
  }

  private entryQuery(shape: EntryQueryShape): BetterSqlite3.Statement<unknown[], EntryRow> {
    const key = shapeKey(shape);
    let stmt = this.entryQueries.get(key);
    if (stmt === undefined) {
      stmt = this.db.prepare<unknown[], EntryRow>(entryQuerySql(shape));
      this.entryQueries.set(key, stmt);
    }
    return stmt;
  }

  private read<T>(operation: string, op: () => T): T {
    return runStorageOp(this.db, this.busyRetry, `SqliteStateMachine.${operation}`, op);
  }

  private write<T>(operation: string, op: () => T): T {
    return runStorageOp(
      this.db,
      this.busyRetry,
      `SqliteStateMachine.${operation}`,
      () => this.runInTransaction.immediate(op) as T,
    );
  }
}
