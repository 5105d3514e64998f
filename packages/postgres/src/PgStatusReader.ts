import * as core from '@loopguard/core/internal';
import type pg from 'pg';
import { assertNoNul } from './nulText.js';
import { toStorageError } from './pgErrors.js';

/**
 * The newest-first order of a task's entries, written so that PostgreSQL finds them through the GIN
 * index on `related_tasks` and sorts the few it finds: with the plain column the planner walks the
 * whole recovery index newest first, filtering every entry (a page of 100 tasks took 0.9 s on
 * 10,000 recoveries instead of milliseconds).
 */
const BY_TASK_ORDER = 'e.timestamp + 0 DESC, e.id DESC';
const ENTRY_COLUMNS =
  'e.id, e.timestamp, e.entry_type, e.topic, e.content, e.related_tasks, e.confidence, e.metadata';

/**
 * The status server's reads ({@link core.StatusReader}) on loopguard's PostgreSQL schema: the dashboard of
 * a fleet whose workers share one database. Queries are keyset-paged and index-backed (tasks by
 * primary key in the database's collation, recoveries through the partial recovery index, a task's
 * recoveries through the GIN index on `related_tasks`); it never writes, so a read-only role is
 * enough. The PostgreSQL schema has no `loopguard run` tables: `latestRun()` is always `undefined`.
 * @example
 * const storage = await openPostgresStorage({ connectionString, migrate: false });
 * const reader = new PgStatusReader(storage);
 */
export class PgStatusReader implements core.StatusReader {
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

  async taskPage(query: core.TaskPageQuery): Promise<core.TaskStatusPage> {
    const after = core.taskPageAfter(query);
    assertNoNul(after, 'cursor');
    const [rows, total] = await Promise.all([
      this.rows<core.TaskPageRow>(
        'taskPage',
        `SELECT t.id, t.title, t.status, t.blocked_reason, a.attempt_count, a.last_attempt,
           (SELECT e.topic FROM context_entries AS e
             WHERE e.related_tasks @> jsonb_build_array(t.id) AND e.topic IN ${core.RECOVERY_TOPICS_SQL}
             ORDER BY ${BY_TASK_ORDER} LIMIT 1) AS last_recovery
         FROM tasks AS t
         CROSS JOIN LATERAL (SELECT count(*) AS attempt_count, max(timestamp) AS last_attempt
           FROM attempts WHERE task_id = t.id AND timestamp >= $1) AS a
         WHERE $2::text IS NULL OR t.id > $2 ORDER BY t.id LIMIT $3`,
        [query.attemptsSince, after, query.limit + 1],
      ),
      this.number('taskPage', 'SELECT count(*) AS value FROM tasks'),
    ]);
    return core.taskPageOf(rows, query.limit, total);
  }

  async recoveryPage(query: core.RecoveryPageQuery): Promise<core.RecoveryPage> {
    assertNoNul(query.taskId, 'taskId');
    const where = [`e.topic IN ${core.RECOVERY_VIEW_TOPICS_SQL}`];
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
    const after = core.recoveryPageAfter(query);
    if (after !== null) {
      add((n) => `(e.timestamp, e.id) < ($${n}, $${n + 1})`, after.timestamp, after.entryId);
    }
    values.push(query.limit + 1);
    const order = query.taskId === undefined ? 'e.timestamp DESC, e.id DESC' : BY_TASK_ORDER;
    const rows = await this.rows<core.EntryRow>(
      'recoveryPage',
      `SELECT ${ENTRY_COLUMNS} FROM context_entries AS e WHERE ${where.join(' AND ')}
       ORDER BY ${order} LIMIT $${values.length}`,
      values,
    );
    return core.recoveryPageOf(rows, query.limit);
  }

  async lastAttemptAt(): Promise<number | null> {
    const [row] = await this.rows<{ value: number | string | null }>(
      'lastAttemptAt',
      'SELECT max(timestamp) AS value FROM attempts',
    );
    return row?.value == null ? null : Number(row.value);
  }

  async latestRun(): Promise<core.RunBreakerView | undefined> {
    return undefined;
  }

  async metricsBaseline(): Promise<core.StatusMetricsBaseline> {
    const [attempts, recoveries] = await Promise.all([
      this.number('metricsBaseline', 'SELECT count(*) AS value FROM attempts'),
      this.rows<{ topic: string; loop_type: string | null; count: number | string; loops: number | string }>(
        'metricsBaseline',
        `SELECT topic, metadata->>'loopType' AS loop_type, count(*) AS count,
           count(*) FILTER (WHERE metadata->>'${core.FOLLOWS_NUDGE_KEY}' IS DISTINCT FROM 'true') AS loops
         FROM context_entries WHERE topic IN ${core.RECOVERY_VIEW_TOPICS_SQL} GROUP BY 1, 2`,
      ),
    ]);
    return {
      attempts,
      recoveries: recoveries.map((r) => ({
        topic: r.topic,
        loopType: r.loop_type,
        count: Number(r.count),
        loops: Number(r.loops),
      })),
    };
  }

  async feedPosition(): Promise<core.FeedPosition> {
    const [row] = await this.rows<{ attempt_id: number | string; entry_id: number | string }>(
      'feedPosition',
      `SELECT (SELECT coalesce(max(id), 0) FROM attempts) AS attempt_id,
              (SELECT coalesce(max(id), 0) FROM context_entries) AS entry_id`,
    );
    return { attemptId: Number(row?.attempt_id ?? 0), entryId: Number(row?.entry_id ?? 0), transitionId: 0 };
  }

  async feedAfter(position: core.FeedPosition, limit: number): Promise<core.FeedBatch> {
    const [attemptId, entries] = await Promise.all([
      this.number('feedAfter', 'SELECT coalesce(max(id), 0) AS value FROM attempts'),
      this.rows<core.EntryRow>(
        'feedAfter',
        `SELECT ${ENTRY_COLUMNS} FROM context_entries AS e
         WHERE e.id > $1 AND e.topic IN ${core.RECOVERY_VIEW_TOPICS_SQL} ORDER BY e.id LIMIT $2`,
        [position.entryId, limit],
      ),
    ]);
    const last = entries.at(-1);
    return {
      attemptsAdded: Math.max(0, attemptId - position.attemptId),
      breakerTransitions: [],
      recoveries: core.recoveryViewsOf(entries),
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

  async sessionPage(query: core.SessionPageQuery): Promise<core.SessionPage> {
    const after = core.sessionPageAfter(query);
    assertNoNul(after, 'cursor');
    assertNoNul(query.sessionId, 'sessionId');
    const values: unknown[] = [query.sessionId ?? null, query.verdict ?? null, query.limit + 1];
    let keyset = '';
    if (after !== null) {
      values.push(...after);
      keyset = `AND (last_active < $4 OR (last_active = $4 AND (agent, session_id, project_dir) < ($5, $6, $7)))`;
    }
    const rows = await this.rows<core.SessionRow>(
      'sessionPage',
      `WITH page AS (
         SELECT * FROM agent_sessions WHERE ($1::text IS NULL OR session_id = $1) AND ($2::text IS NULL OR verdict = $2) ${keyset}
         ORDER BY last_active DESC, agent DESC, session_id DESC, project_dir DESC LIMIT $3
       )
       ${LATER_STOPS_SQL}
       ORDER BY last_active DESC, agent DESC, session_id DESC, project_dir DESC`,
      values,
    );
    return core.sessionPageOf(rows, query.limit);
  }

  async sessionCounts(): Promise<core.SessionCounts> {
    const [verdicts, spend] = await Promise.all([
      this.rows<{ verdict: string; count: string }>(
        'sessionCounts',
        'SELECT verdict, count(*) AS count FROM agent_sessions GROUP BY verdict',
      ),
      this.rows<core.SpendByAgentRow>(
        'sessionCounts',
        `SELECT agent, sum(tokens) AS tokens, sum(cost_usd) AS cost_usd,
           json_agg(json_build_array(cost_usd, budget_usd)) FILTER (WHERE abs(cost_usd - budget_usd) < 0.01) AS near_cap
         FROM agent_sessions WHERE tokens IS NOT NULL GROUP BY agent ORDER BY agent`,
      ),
    ]);
    return core.sessionCountsOf(verdicts, spend);
  }

  async sessionEntries(session: core.SessionKey, limit: number): Promise<core.RecoveryView[]> {
    assertNoNul(session.sessionId, 'sessionId');
    const rows = await this.rows<core.EntryRow>(
      'sessionEntries',
      `SELECT ${ENTRY_COLUMNS} FROM context_entries AS e
       WHERE e.topic IN ${core.RECOVERY_VIEW_TOPICS_SQL} AND e.metadata->>'runId' = $1 AND e.metadata->>'adapter' = $2
       ORDER BY e.timestamp, e.id LIMIT $3`,
      [session.sessionId, session.agent, limit],
    );
    return core.recoveryViewsOf(rows);
  }
}

/**
 * A stop entry `x` that denied its call before it ran: SQLite's reader's rule (`liveSessions.ts`), a
 * loop stop so marked (`deniedBeforeRun`) or a spend stop answered to a call about to run.
 */
const DENIED_STOP = `(coalesce(x.metadata->>'deniedBeforeRun', '') = 'true'
  OR (x.topic = 'spend_stop' AND coalesce(x.metadata->>'hookEvent', '') IN ('PreToolUse', 'BeforeTool')))`;

/**
 * The sessions of the CTE `page` (rows of the view `agent_sessions`, schema version 7: the one place
 * PostgreSQL decides a verdict, as SQLite's view does) with, as SQLite's reader adds them, a run's
 * stops after its first (a run guarded again under its `runId`: pg68): those that denied a call
 * before it ran (`denied_after_stop`), the others (`stopped_again`) and the call the last of those
 * fell at (`last_stop_call`), read for the page's stopped runs only.
 */
const LATER_STOPS_SQL = `,
stops AS (
  SELECT x.metadata->>'adapter' AS agent, x.metadata->>'runId' AS session_id, x.timestamp, x.id,
    (x.metadata->>'toolCall')::integer AS tool_call, ${DENIED_STOP} AS denied,
    row_number() OVER (PARTITION BY x.metadata->>'adapter', x.metadata->>'runId' ORDER BY x.timestamp, x.id) AS n
  FROM context_entries AS x
  WHERE x.topic IN ('loop_stop', 'spend_stop')
    AND (x.metadata->>'adapter', x.metadata->>'runId') IN (SELECT agent, session_id FROM page WHERE stop_topic IS NOT NULL)
),
later AS (
  SELECT agent, session_id, count(*) FILTER (WHERE denied) AS denied_after_stop,
    count(*) FILTER (WHERE NOT denied) AS stopped_again,
    (array_agg(tool_call ORDER BY timestamp DESC, id DESC) FILTER (WHERE NOT denied))[1] AS last_stop_call
  FROM stops WHERE n > 1 GROUP BY 1, 2
)
SELECT v.*, l.denied_after_stop, l.stopped_again, l.last_stop_call
FROM page AS v LEFT JOIN later AS l ON l.agent = v.agent AND l.session_id = v.session_id`;
