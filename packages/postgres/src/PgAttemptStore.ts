import type {
  AsyncAttemptStore,
  Attempt,
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
import type { PgExecutor } from './executor.js';
import { assertNoNul } from './nulText.js';

const INSERT =
  'INSERT INTO attempts (task_id, timestamp, status, blockers, completed_work, session_id) VALUES ($1, $2, $3, $4, $5, $6)';

/**
 * The {@link AsyncAttemptStore} on PostgreSQL (table `attempts`). `append` is durable when its
 * promise resolves (one autocommit `INSERT`, or part of the enclosing transaction). Returned
 * attempts are frozen. Build it with `openPostgresStorage`, which shares one pool between the ports.
 *
 * @example
 * const storage = await openPostgresStorage({ connectionString });
 * await storage.attempts.append({ taskId: 'T1', timestamp: Date.now(), status: 'done', blockers: [], completedWork: [], sessionId: 'w1' });
 */
export class PgAttemptStore implements AsyncAttemptStore {
  /** @param ex - the pool's executor, or a transaction's. */
  constructor(private readonly ex: PgExecutor) {}

  async append(attempt: Attempt): Promise<void> {
    // an attempt built by a detector was validated there, once
    checkStoredAttempt(attempt, 'attempt');
    assertNoNul(attempt, 'attempt');
    await this.ex.query(
      'PgAttemptStore.append',
      INSERT,
      attemptRowValues(attempt),
      'loopguard_attempt_insert',
    );
  }

  async appendMany(attempts: readonly Attempt[]): Promise<void> {
    checkStoredAttempts(attempts);
    assertNoNul(attempts, 'attempts');
    if (attempts.length === 0) return;
    await this.ex.query(
      'PgAttemptStore.appendMany',
      'INSERT INTO attempts (task_id, timestamp, status, blockers, completed_work, session_id)' +
        ' SELECT t, ts, s, b, w, sid FROM unnest($1::text[], $2::bigint[], $3::text[], $4::jsonb[], $5::jsonb[], $6::text[]) WITH ORDINALITY AS a(t, ts, s, b, w, sid, n) ORDER BY n',
      [
        attempts.map((a) => a.taskId),
        attempts.map((a) => a.timestamp),
        attempts.map((a) => a.status),
        attempts.map((a) => JSON.stringify(a.blockers)),
        attempts.map((a) => JSON.stringify(a.completedWork)),
        attempts.map((a) => a.sessionId),
      ],
    );
  }

  async listSince(taskId: string, since: number): Promise<Attempt[]> {
    assertNonEmptyString(taskId, 'taskId');
    assertNoNul(taskId, 'taskId');
    assertFiniteNumber(since, 'since');
    const { rows } = await this.ex.query<AttemptRow>(
      'PgAttemptStore.listSince',
      `SELECT ${ATTEMPT_COLUMNS} FROM attempts` +
        ' WHERE task_id = $1 AND timestamp >= $2 ORDER BY timestamp, id',
      [taskId, since],
      'loopguard_attempt_list_since',
    );
    return rows.map(attemptOf);
  }

  async listRecent(since: number, limit: number): Promise<Attempt[]> {
    assertFiniteNumber(since, 'since');
    assertLimit(limit, 'limit');
    const { rows } = await this.ex.query<AttemptRow>(
      'PgAttemptStore.listRecent',
      `SELECT ${ATTEMPT_COLUMNS} FROM` +
        ' (SELECT * FROM attempts WHERE timestamp >= $1 ORDER BY timestamp DESC, id DESC LIMIT $2) AS recent' +
        ' ORDER BY timestamp, id',
      [since, limit],
      'loopguard_attempt_list_recent',
    );
    return rows.map(attemptOf);
  }

  async clear(taskId: string): Promise<number> {
    assertNonEmptyString(taskId, 'taskId');
    assertNoNul(taskId, 'taskId');
    const result = await this.ex.query('PgAttemptStore.clear', 'DELETE FROM attempts WHERE task_id = $1', [
      taskId,
    ]);
    return result.rowCount ?? 0;
  }

  async prune(before: number, limit: number): Promise<number> {
    assertFiniteNumber(before, 'before');
    assertLimit(limit, 'limit');
    if (limit === 0) return 0;
    const result = await this.ex.query(
      'PgAttemptStore.prune',
      'DELETE FROM attempts WHERE id IN (SELECT id FROM attempts WHERE timestamp < $1 ORDER BY timestamp LIMIT $2)',
      [before, limit],
    );
    return result.rowCount ?? 0;
  }

  async summarize(since: number): Promise<Map<string, AttemptSummary>> {
    assertFiniteNumber(since, 'since');
    const { rows } = await this.ex.query<{ task_id: string; attempt_count: number; last_attempt: number }>(
      'PgAttemptStore.summarize',
      'SELECT task_id, count(*)::integer AS attempt_count, max(timestamp) AS last_attempt FROM attempts' +
        ' WHERE timestamp >= $1 GROUP BY task_id ORDER BY task_id',
      [since],
    );
    return new Map(
      rows.map((r) => [r.task_id, { attemptCount: r.attempt_count, lastAttempt: r.last_attempt }]),
    );
  }

  /**
   * One page of {@link summarize}, in task-id order (`COLLATE "C"`, the byte order SQLite uses).
   * Groups the page's tasks' attempts; the total counts the window's distinct tasks.
   */
  async summarizePage(since: number, query: AttemptSummaryPageQuery): Promise<AttemptSummaryPage> {
    assertFiniteNumber(since, 'since');
    validatePageQuery(query);
    assertNoNul(query.cursor, 'query.cursor');
    const { rows } = await this.ex.query<{ task_id: string; attempt_count: number; last_attempt: number }>(
      'PgAttemptStore.summarizePage',
      'SELECT task_id, count(*)::integer AS attempt_count, max(timestamp) AS last_attempt FROM attempts' +
        ' WHERE timestamp >= $1 AND task_id COLLATE "C" > $2 GROUP BY task_id ORDER BY task_id COLLATE "C" LIMIT $3',
      [since, query.cursor ?? '', query.limit + 1],
    );
    const total = await this.ex.query<{ total: number }>(
      'PgAttemptStore.summarizePage',
      'SELECT count(DISTINCT task_id)::integer AS total FROM attempts WHERE timestamp >= $1',
      [since],
    );
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    return {
      tasks: page.map((r): [string, AttemptSummary] => [
        r.task_id,
        { attemptCount: r.attempt_count, lastAttempt: r.last_attempt },
      ]),
      total: total.rows[0]?.total ?? 0,
      nextCursor: more ? (page[page.length - 1]?.task_id ?? null) : null,
    };
  }
}
