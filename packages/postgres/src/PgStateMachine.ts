import {
  type AsyncStateMachine,
  type Clock,
  type ContextEntry,
  type ContextEntryInput,
  type ContextEntryQuery,
  StorageError,
  type Task,
  type TaskEvent,
  type TaskInput,
  type TaskStatus,
} from '@loopguard/core';
import {
  allRecoveryTopics,
  assertNonEmptyString,
  checkedClock,
  ENTRY_COLUMNS,
  type EntryRow,
  type EventRow,
  entryOf,
  eventOf,
  RECOVERY_TOPICS_SQL,
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
import type { PgExecutor } from './executor.js';
import { assertNoNul } from './nulText.js';

/**
 * The {@link AsyncStateMachine} on PostgreSQL: tables `tasks`, `task_events` (append-only) and
 * `context_entries`. Each write is one statement or one short transaction (or part of the enclosing
 * transaction); returned objects are frozen copies. Times come from the injected clock, so hosts
 * should keep their clocks in sync (NTP). Build it with `openPostgresStorage`.
 *
 * @example
 * const { stateMachine } = await openPostgresStorage({ connectionString });
 * await stateMachine.upsertTask({ id: 'T1', title: 'Build the login page' });
 * await stateMachine.transition('T1', 'in_progress', 'picked by worker 3');
 */
export class PgStateMachine implements AsyncStateMachine {
  /**
   * @param ex - the pool's executor, or a transaction's.
   * @param clock - the source of task and entry timestamps.
   */
  private readonly clock: Clock;

  constructor(
    private readonly ex: PgExecutor,
    clock: Clock,
  ) {
    this.clock = checkedClock(clock, 'options.clock');
  }

  async getTask(taskId: string): Promise<Task | undefined> {
    assertNonEmptyString(taskId, 'taskId');
    assertNoNul(taskId, 'taskId');
    const { rows } = await this.ex.query<TaskRow>(
      'PgStateMachine.getTask',
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1`,
      [taskId],
      'loopguard_task_get',
    );
    return rows[0] === undefined ? undefined : taskOf(rows[0]);
  }

  async listTasks(filter: { statuses?: readonly TaskStatus[] } = {}): Promise<Task[]> {
    const statuses = validateTaskFilter(filter);
    const { rows } =
      statuses === undefined
        ? await this.ex.query<TaskRow>(
            'PgStateMachine.listTasks',
            `SELECT ${TASK_COLUMNS} FROM tasks ORDER BY created_seq`,
          )
        : await this.ex.query<TaskRow>(
            'PgStateMachine.listTasks',
            `SELECT ${TASK_COLUMNS} FROM tasks WHERE status = ANY($1::text[]) ORDER BY created_seq`,
            [statuses],
          );
    return rows.map(taskOf);
  }

  async upsertTask(input: TaskInput): Promise<Task> {
    input = validateTaskInput(input);
    assertNoNul(input, 'input');
    const metadata = input.metadata === undefined ? null : JSON.stringify(input.metadata);
    const { rows } = await this.ex.query<TaskRow>(
      'PgStateMachine.upsertTask',
      `WITH up AS (
         INSERT INTO tasks (id, title, status, metadata, created_at, updated_at)
         VALUES ($1, coalesce($2, ''), $3, coalesce($4::jsonb, '{}'), $5, $5)
         ON CONFLICT (id) DO UPDATE
           SET title = coalesce($2, tasks.title), metadata = coalesce($4::jsonb, tasks.metadata), updated_at = $5
         RETURNING ${TASK_COLUMNS}, (xmax = 0) AS inserted
       ), created AS (
         INSERT INTO task_events (task_id, from_status, to_status, reason, timestamp)
         SELECT id, NULL, status, 'created', $5 FROM up WHERE inserted
       )
       SELECT ${TASK_COLUMNS} FROM up`,
      [input.id, input.title ?? null, input.status ?? 'pending', metadata, this.clock.now()],
    );
    return taskOf(rows[0] as TaskRow);
  }

  /** Keeps the run's one row in `adapter_runs` (see the port; docs/sql.md, "Sessions"). */
  async recordRunTally(tally: RunTally): Promise<void> {
    validateRunTally(tally);
    assertNoNul(tally, 'tally');
    await this.ex.query(
      'PgStateMachine.recordRunTally',
      runTallyUpsertSql((n) => `$${n}`),
      runTallyValues(tally),
      'loopguard_run_tally',
    );
  }

  async transition(taskId: string, status: TaskStatus, reason: string): Promise<Task> {
    validateTransition(taskId, status, reason);
    assertNoNul(taskId, 'taskId');
    assertNoNul(reason, 'reason');
    const { rows } = await this.ex.query<TaskRow>(
      'PgStateMachine.transition',
      `WITH old AS (
         SELECT id, status FROM tasks WHERE id = $1 FOR UPDATE
       ), moved AS (
         UPDATE tasks SET status = $2, blocked_reason = $3, updated_at = $4 FROM old
         WHERE tasks.id = old.id
         RETURNING tasks.id, tasks.title, tasks.status, tasks.blocked_reason, tasks.metadata, tasks.created_at, tasks.updated_at
       ), event AS (
         INSERT INTO task_events (task_id, from_status, to_status, reason, timestamp)
         SELECT id, status, $2, $5, $4 FROM old
       )
       SELECT ${TASK_COLUMNS} FROM moved`,
      [taskId, status, status === 'blocked' ? reason : null, this.clock.now(), reason],
    );
    if (rows[0] === undefined) {
      throw new StorageError('task_not_found', `transition: task ${JSON.stringify(taskId)} does not exist`);
    }
    return taskOf(rows[0]);
  }

  async listTaskEvents(taskId: string): Promise<TaskEvent[]> {
    assertNonEmptyString(taskId, 'taskId');
    assertNoNul(taskId, 'taskId');
    const { rows } = await this.ex.query<EventRow>(
      'PgStateMachine.listTaskEvents',
      'SELECT task_id, from_status, to_status, reason, timestamp FROM task_events WHERE task_id = $1 ORDER BY id',
      [taskId],
    );
    return rows.map(eventOf);
  }

  async addContextEntry(input: ContextEntryInput): Promise<ContextEntry> {
    input = validateContextEntryInput(input);
    assertNoNul(input, 'input');
    const { rows } = await this.ex.query<EntryRow>(
      'PgStateMachine.addContextEntry',
      `INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks, confidence, metadata)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${ENTRY_COLUMNS}`,
      [
        this.clock.now(),
        input.entryType,
        input.topic,
        input.content,
        JSON.stringify(input.relatedTasks ?? []),
        input.confidence ?? 1,
        JSON.stringify(input.metadata ?? {}),
      ],
    );
    return entryOf(rows[0] as EntryRow);
  }

  async listContextEntries(query: ContextEntryQuery = {}): Promise<ContextEntry[]> {
    validateContextEntryQuery(query);
    assertNoNul(query, 'query');
    const { topics, taskId, since, limit } = query;
    if (topics !== undefined && topics.length === 0) return [];
    const where: string[] = [];
    const values: unknown[] = [];
    if (taskId !== undefined) {
      values.push(JSON.stringify([taskId]));
      where.push(`related_tasks @> $${values.length}::jsonb`);
    }
    if (topics !== undefined) {
      // The literal list lets the planner use the partial index; it never changes the result.
      if (allRecoveryTopics(topics)) where.push(`topic IN ${RECOVERY_TOPICS_SQL}`);
      values.push(topics);
      where.push(`topic = ANY($${values.length}::text[])`);
    }
    if (since !== undefined) {
      values.push(since);
      where.push(`timestamp >= $${values.length}`);
    }
    values.push(limit ?? null);
    const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    const { rows } = await this.ex.query<EntryRow>(
      'PgStateMachine.listContextEntries',
      `SELECT ${ENTRY_COLUMNS} FROM context_entries${filter} ORDER BY timestamp DESC, id DESC LIMIT $${values.length}`,
      values,
    );
    return rows.map(entryOf);
  }
}
