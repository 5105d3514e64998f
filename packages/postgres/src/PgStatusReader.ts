import {
  decodeStatusCursor,
  type EntryRow,
  encodeStatusCursor,
  entryOf,
  type FeedBatch,
  type FeedPosition,
  RECOVERY_TOPICS_SQL,
  RECOVERY_VIEW_TOPICS_SQL,
  type RecoveryPage,
  type RecoveryPageQuery,
  type RunBreakerView,
  recoveryPageOf,
  recoveryViewOf,
  type StatusMetricsBaseline,
  type StatusReader,
  type TaskPageQuery,
  type TaskStatusPage,
} from '@loopguard/core/internal';
import type pg from 'pg';
import { toStorageError } from './pgErrors.js';

/** The recovery topics as the partial index `context_entries_recovery_time` spells them. */
const RECOVERY_IN = RECOVERY_TOPICS_SQL;
/** The recovery topics plus `loop_nudge`, `loop_stop`, as the partial index `context_entries_recovery_view_time` spells them. */
const RECOVERY_VIEW_IN = RECOVERY_VIEW_TOPICS_SQL;
/**
 * The newest-first order of a task's entries, written so that PostgreSQL finds them through the GIN
 * index on `related_tasks` and sorts the few it finds: with the plain column the planner walks the
 * whole recovery index newest first, filtering every entry (a page of 100 tasks took 0.9 s on
 * 10,000 recoveries instead of milliseconds).
 */
const BY_TASK_ORDER = 'e.timestamp + 0 DESC, e.id DESC';
const ENTRY_COLUMNS =
  'e.id, e.timestamp, e.entry_type, e.topic, e.content, e.related_tasks, e.confidence, e.metadata';

interface TaskRow {
  id: string;
  title: string;
  status: string;
  blocked_reason: string | null;
  attempt_count: number | string;
  last_attempt: number | string | null;
  last_recovery: string | null;
}

const nullableNumber = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

/**
 * The status server's reads ({@link StatusReader}) on loopguard's PostgreSQL schema: the dashboard of
 * a fleet whose workers share one database. Queries are keyset-paged and index-backed (tasks by
 * primary key in the database's collation, recoveries through the partial recovery index, a task's
 * recoveries through the GIN index on `related_tasks`); it never writes, so a read-only role is
 * enough. The PostgreSQL schema has no `loopguard run` tables: `latestRun()` is always `undefined`.
 * @example
 * const storage = await openPostgresStorage({ connectionString, migrate: false });
 * const reader = new PgStatusReader(storage);
 */
export class PgStatusReader implements StatusReader {
  private readonly pool: pg.Pool;

  /** @param storage - an open `PostgresStorage` (or anything holding a pool whose `search_path` leads to loopguard's schema). */
  constructor(storage: { readonly pool: pg.Pool }) {
    this.pool = storage.pool;
  }

  private async rows<R extends pg.QueryResultRow>(
    operation: string,
    text: string,
    values: unknown[] = [],
  ): Promise<R[]> {
    try {
      return (await this.pool.query<R>({ text, values })).rows;
    } catch (error) {
      throw toStorageError(error, `PgStatusReader.${operation}`);
    }
  }

  private async number(operation: string, text: string, values: unknown[] = []): Promise<number> {
    const [row] = await this.rows<{ value: number | string | null }>(operation, text, values);
    return Number(row?.value ?? 0);
  }

  async taskPage(query: TaskPageQuery): Promise<TaskStatusPage> {
    const after = query.cursor === undefined ? null : decodeStatusCursor(query.cursor, ['string'])[0];
    const [rows, total] = await Promise.all([
      this.rows<TaskRow>(
        'taskPage',
        `SELECT t.id, t.title, t.status, t.blocked_reason, a.attempt_count, a.last_attempt,
           (SELECT e.topic FROM context_entries AS e
             WHERE e.related_tasks @> jsonb_build_array(t.id) AND e.topic IN ${RECOVERY_IN}
             ORDER BY ${BY_TASK_ORDER} LIMIT 1) AS last_recovery
         FROM tasks AS t
         CROSS JOIN LATERAL (SELECT count(*) AS attempt_count, max(timestamp) AS last_attempt
           FROM attempts WHERE task_id = t.id AND timestamp >= $1) AS a
         WHERE $2::text IS NULL OR t.id > $2 ORDER BY t.id LIMIT $3`,
        [query.attemptsSince, after, query.limit + 1],
      ),
      this.number('taskPage', 'SELECT count(*) AS value FROM tasks'),
    ]);
    const tasks = rows.slice(0, query.limit).map((row) => ({
      id: row.id,
      title: row.title,
      status: row.status,
      blockedReason: row.blocked_reason,
      attemptCount: Number(row.attempt_count),
      lastAttempt: nullableNumber(row.last_attempt),
      lastRecovery: row.last_recovery,
    }));
    const last = tasks.at(-1);
    return {
      tasks,
      total,
      nextCursor: rows.length > query.limit && last ? encodeStatusCursor([last.id]) : null,
    };
  }

  async recoveryPage(query: RecoveryPageQuery): Promise<RecoveryPage> {
    const where = [`e.topic IN ${RECOVERY_VIEW_IN}`];
    const values: unknown[] = [];
    const add = (condition: (n: number) => string, ...params: unknown[]): void => {
      where.push(condition(values.length + 1));
      values.push(...params);
    };
    if (query.taskId !== undefined)
      add((n) => `e.related_tasks @> $${n}::jsonb`, JSON.stringify([query.taskId]));
    if (query.topic !== undefined) add((n) => `e.topic = $${n}`, query.topic);
    if (query.since !== undefined) add((n) => `e.timestamp >= $${n}`, query.since);
    if (query.until !== undefined) add((n) => `e.timestamp < $${n}`, query.until);
    if (query.cursor !== undefined) {
      const [timestamp, entryId] = decodeStatusCursor(query.cursor, ['number', 'number']);
      add((n) => `(e.timestamp, e.id) < ($${n}, $${n + 1})`, timestamp, entryId);
    }
    values.push(query.limit + 1);
    const order = query.taskId === undefined ? 'e.timestamp DESC, e.id DESC' : BY_TASK_ORDER;
    const rows = await this.rows<EntryRow>(
      'recoveryPage',
      `SELECT ${ENTRY_COLUMNS} FROM context_entries AS e WHERE ${where.join(' AND ')}
       ORDER BY ${order} LIMIT $${values.length}`,
      values,
    );
    return recoveryPageOf(rows, query.limit);
  }

  async lastAttemptAt(): Promise<number | null> {
    const [row] = await this.rows<{ value: number | string | null }>(
      'lastAttemptAt',
      'SELECT max(timestamp) AS value FROM attempts',
    );
    return nullableNumber(row?.value ?? null);
  }

  async latestRun(): Promise<RunBreakerView | undefined> {
    return undefined;
  }

  async metricsBaseline(): Promise<StatusMetricsBaseline> {
    const [attempts, recoveries] = await Promise.all([
      this.number('metricsBaseline', 'SELECT count(*) AS value FROM attempts'),
      this.rows<{ topic: string; loop_type: string | null; count: number | string }>(
        'metricsBaseline',
        `SELECT topic, metadata->>'loopType' AS loop_type, count(*) AS count
         FROM context_entries WHERE topic IN ${RECOVERY_VIEW_IN} GROUP BY 1, 2`,
      ),
    ]);
    return {
      attempts,
      recoveries: recoveries.map((r) => ({ topic: r.topic, loopType: r.loop_type, count: Number(r.count) })),
    };
  }

  async feedPosition(): Promise<FeedPosition> {
    const [row] = await this.rows<{ attempt_id: number | string; entry_id: number | string }>(
      'feedPosition',
      `SELECT (SELECT coalesce(max(id), 0) FROM attempts) AS attempt_id,
              (SELECT coalesce(max(id), 0) FROM context_entries) AS entry_id`,
    );
    return { attemptId: Number(row?.attempt_id ?? 0), entryId: Number(row?.entry_id ?? 0), transitionId: 0 };
  }

  async feedAfter(position: FeedPosition, limit: number): Promise<FeedBatch> {
    const [attemptId, entries] = await Promise.all([
      this.number('feedAfter', 'SELECT coalesce(max(id), 0) AS value FROM attempts'),
      this.rows<EntryRow>(
        'feedAfter',
        `SELECT ${ENTRY_COLUMNS} FROM context_entries AS e
         WHERE e.id > $1 AND e.topic IN ${RECOVERY_VIEW_IN} ORDER BY e.id LIMIT $2`,
        [position.entryId, limit],
      ),
    ]);
    const last = entries.at(-1);
    return {
      attemptsAdded: Math.max(0, attemptId - position.attemptId),
      breakerTransitions: [],
      recoveries: entries.map((row) => recoveryViewOf(entryOf(row))),
      position: { attemptId, entryId: last ? Number(last.id) : position.entryId, transitionId: 0 },
      more: entries.length === limit,
    };
  }

  /**
   * The WAL insert position: every committed write moves it (other databases' writes too, which
   * only shortens the cache's life). A standby reports its replay position.
   */
  async changeStamp(): Promise<string> {
    const [row] = await this.rows<{ value: string }>(
      'changeStamp',
      `SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()
               ELSE pg_current_wal_insert_lsn() END)::text AS value`,
    );
    return row?.value ?? '';
  }
}
