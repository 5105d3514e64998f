import * as core from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';
import { readLiveSessions, sessionRowColumns, subagentVerdictRows } from './liveSessions.js';
import { SqliteRunStore } from './SqliteRunStore.js';

/**
 * The status server's reads ({@link core.StatusReader}) on a loopguard SQLite database, with paged,
 * index-backed queries (none scans all tasks or all attempts per request). The newest run comes
 * from {@link SqliteRunStore}, so a run state it reports (such as `interrupted`) is shown as is.
 * Reads only: the database may be opened read-only.
 * @example
 * const reader = new SqliteStatusReader(openLoopGuardDatabase('state.db', { readonly: true }));
 * await reader.taskPage({ limit: 100, attemptsSince: Date.now() - 3_600_000 });
 */
export class SqliteStatusReader implements core.StatusReader {
  private readonly db: BetterSqlite3.Database;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly tables = new Set<string>();
  private runs: SqliteRunStore | undefined;

  /** @param database - an open loopguard database (`openLoopGuardDatabase`), or anything holding its connection as `db`. */
  constructor(database: { readonly db: BetterSqlite3.Database }) {
    this.db = database.db;
  }

  /** The prepared statement of `sql`, prepared once. */
  private cached(sql: string): BetterSqlite3.Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private value<T>(sql: string, ...params: unknown[]): T {
    return this.cached(sql)
      .pluck()
      .get(...params) as T;
  }

  /** Whether `table` exists (tables of later schema versions appear when another process migrates). */
  private hasTable(table: string): boolean {
    return this.hasSchemaObject('table', table);
  }

  /** Whether the view `name` exists (a database of an older schema, opened read-only, has none). */
  private hasView(name: string): boolean {
    return this.hasSchemaObject('view', name);
  }

  /** Whether the sessions view exists; it then reads a killed agent's session as ended ({@link readLiveSessions}). */
  private hasSessions(): boolean {
    if (!this.hasView('agent_sessions')) return false;
    readLiveSessions(this.db);
    return true;
  }

  private hasSchemaObject(type: 'table' | 'view', name: string): boolean {
    if (this.tables.has(name)) return true;
    const found = this.value<number | undefined>(
      'SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?',
      type,
      name,
    );
    if (found !== undefined) this.tables.add(name);
    return found !== undefined;
  }

  async taskPage(query: core.TaskPageQuery): Promise<core.TaskStatusPage> {
    const rows = this.cached(`
      SELECT t.id, t.title, t.status, t.blocked_reason,
        (SELECT count(*) FROM attempts AS a WHERE a.task_id = t.id AND a.timestamp >= @since) AS attempt_count,
        (SELECT max(a.timestamp) FROM attempts AS a WHERE a.task_id = t.id AND a.timestamp >= @since) AS last_attempt,
        (SELECT e.topic FROM context_entry_tasks AS l JOIN context_entries AS e ON e.id = l.entry_id
          WHERE l.task_id = t.id AND e.topic IN ${core.RECOVERY_TOPICS_SQL}
          ORDER BY l.timestamp DESC, l.entry_id DESC LIMIT 1) AS last_recovery
      FROM tasks AS t
      WHERE t.id > @after ORDER BY t.id LIMIT @limit`).all({
      since: query.attemptsSince,
      after: core.taskPageAfter(query) ?? '',
      limit: query.limit + 1,
    }) as core.TaskPageRow[];
    return core.taskPageOf(rows, query.limit, this.value<number>('SELECT count(*) FROM tasks'));
  }

  async recoveryPage(query: core.RecoveryPageQuery): Promise<core.RecoveryPage> {
    const byTask = query.taskId !== undefined;
    const time = byTask ? 'l.timestamp' : 'e.timestamp';
    const id = byTask ? 'l.entry_id' : 'e.id';
    const where = [`e.topic IN ${core.RECOVERY_VIEW_TOPICS_SQL}`];
    const params: (string | number)[] = [];
    const add = (condition: string, ...values: (string | number)[]): void => {
      where.push(condition);
      params.push(...values);
    };
    if (query.taskId !== undefined) add('l.task_id = ?', query.taskId);
    if (query.topic !== undefined) add('e.topic = ?', query.topic);
    if (query.since !== undefined) add(`${time} >= ?`, query.since);
    if (query.until !== undefined) add(`${time} < ?`, query.until);
    const after = core.recoveryPageAfter(query);
    if (after !== null) {
      add(`(${time} < ? OR (${time} = ? AND ${id} < ?))`, after.timestamp, after.timestamp, after.entryId);
    }
    const from = byTask
      ? 'context_entry_tasks AS l JOIN context_entries AS e ON e.id = l.entry_id'
      : 'context_entries AS e';
    const sql = `SELECT e.* FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${time} DESC, ${id} DESC LIMIT ?`;
    const rows = this.cached(sql).all(...params, query.limit + 1) as core.EntryRow[];
    return core.recoveryPageOf(rows, query.limit);
  }

  async lastAttemptAt(): Promise<number | null> {
    return this.value<number | null>('SELECT max(timestamp) FROM attempts');
  }

  async latestRun(): Promise<core.RunBreakerView | undefined> {
    if (!this.hasTable('runs')) return undefined;
    this.runs ??= new SqliteRunStore({ db: this.db });
    const run = this.runs.listRuns(1)[0];
    if (run === undefined) return undefined;
    return {
      state: run.breakerState,
      runId: run.id,
      runStatus: run.status,
      statusText: core.runStatusWords(run.status),
      reason: run.reason,
      updatedAt: run.updatedAt,
    };
  }

  async metricsBaseline(): Promise<core.StatusMetricsBaseline> {
    const recoveries = this.cached(
      `SELECT topic, json_extract(metadata, '$.loopType') AS loopType, count(*) AS count,
         sum(json_extract(metadata, '$.${core.FOLLOWS_NUDGE_KEY}') IS NOT 1) AS loops
       FROM context_entries WHERE topic IN ${core.RECOVERY_VIEW_TOPICS_SQL} GROUP BY 1, 2`,
    ).all() as core.StatusMetricsBaseline['recoveries'];
    return { attempts: this.value<number>('SELECT count(*) FROM attempts'), recoveries };
  }

  async feedPosition(): Promise<core.FeedPosition> {
    return {
      attemptId: this.value<number>('SELECT coalesce(max(id), 0) FROM attempts'),
      entryId: this.value<number>('SELECT coalesce(max(id), 0) FROM context_entries'),
      transitionId: this.hasTable('breaker_transitions')
        ? this.value<number>('SELECT coalesce(max(id), 0) FROM breaker_transitions')
        : 0,
    };
  }

  async feedAfter(position: core.FeedPosition, limit: number): Promise<core.FeedBatch> {
    const attemptId = this.value<number>('SELECT coalesce(max(id), 0) FROM attempts');
    const transitions = this.hasTable('breaker_transitions')
      ? (this.cached(
          'SELECT id, run_id AS runId, at, from_state AS "from", to_state AS state, reason FROM breaker_transitions WHERE id > ? ORDER BY id LIMIT ?',
        ).all(position.transitionId, limit) as core.BreakerTransitionView[])
      : [];
    const entries = this.cached(
      `SELECT * FROM context_entries WHERE id > ? AND topic IN ${core.RECOVERY_VIEW_TOPICS_SQL} ORDER BY id LIMIT ?`,
    ).all(position.entryId, limit) as core.EntryRow[];
    return {
      attemptsAdded: Math.max(0, attemptId - position.attemptId),
      breakerTransitions: transitions,
      recoveries: core.recoveryViewsOf(entries),
      // Recoveries delete a task's attempts, so the highest id can go down; new ids continue from it.
      position: {
        attemptId,
        entryId: entries.at(-1)?.id ?? position.entryId,
        transitionId: transitions.at(-1)?.id ?? position.transitionId,
      },
      more: entries.length === limit || transitions.length === limit,
    };
  }

  /**
   * Another connection's commit (`data_version`) or a write through this connection (`total_changes()`)
   * changes the stamp.
   */
  async changeStamp(): Promise<string> {
    return this.value<string>(
      "SELECT (SELECT data_version FROM pragma_data_version()) || ':' || total_changes()",
    );
  }

  async sessionPage(query: core.SessionPageQuery): Promise<core.SessionPage> {
    if (!this.hasSessions()) return { sessions: [], nextCursor: null };
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.sessionId !== undefined) {
      where.push('session_id = ?');
      params.push(query.sessionId);
    }
    if (query.verdict !== undefined) {
      where.push('verdict = ?');
      params.push(query.verdict);
    }
    const after = core.sessionPageAfter(query);
    if (after !== null) {
      where.push('(last_active < ? OR (last_active = ? AND (agent, session_id, project_dir) < (?, ?, ?)))');
      params.push(after[0], ...after);
    }
    const sql = `SELECT ${sessionRowColumns(this.db)} FROM agent_sessions ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
      ORDER BY last_active DESC, agent DESC, session_id DESC, project_dir DESC LIMIT ?`;
    const rows = this.cached(sql).all(...params, query.limit + 1) as core.SessionRow[];
    // the page's main sessions' subagents, for the sentence's end (doors67)
    const parents = rows.slice(0, query.limit).filter((row) => row.parent_session_id === null);
    return core.sessionPageOf(rows, query.limit, subagentVerdictRows(this.db, parents));
  }

  async sessionCounts(): Promise<core.SessionCounts> {
    if (!this.hasSessions()) return core.sessionCountsOf([], []);
    const verdicts = this.cached(
      'SELECT verdict, count(*) AS count FROM agent_sessions GROUP BY verdict',
    ).all() as { verdict: string; count: number }[];
    const spend = this.cached(
      `SELECT agent, sum(tokens) AS tokens, sum(cost_usd) AS cost_usd,
         json_group_array(json_array(cost_usd, budget_usd)) FILTER (WHERE abs(cost_usd - budget_usd) < 0.01) AS near_cap
       FROM agent_sessions WHERE tokens IS NOT NULL GROUP BY agent ORDER BY agent`,
    ).all() as core.SpendByAgentRow[];
    return core.sessionCountsOf(verdicts, spend);
  }

  async sessionEntries(session: core.SessionKey, limit: number): Promise<core.RecoveryView[]> {
    const rows = this.cached(
      `SELECT e.* FROM context_entries AS e
       WHERE e.topic IN ${core.RECOVERY_VIEW_TOPICS_SQL} AND (
         e.id IN (SELECT l.entry_id FROM context_entry_tasks AS l WHERE l.task_id = @task)
         OR (json_extract(e.metadata, '$.parentSessionId') = @id AND json_extract(e.metadata, '$.agent') = @agent)
         OR (json_extract(e.metadata, '$.runId') = @id AND json_extract(e.metadata, '$.agent') IS NULL
           AND coalesce(json_extract(e.metadata, '$.adapter'), 'run') = @agent))
       ORDER BY e.timestamp, e.id LIMIT @limit`,
    ).all({
      // A hook session's entries name its task, its subagents' their parent (each names its own
      // run: what loopguard did in the session); a run's and an adapter's, their run id and door.
      task: `${session.agent}:${session.sessionId}`,
      id: session.sessionId,
      agent: session.agent,
      limit,
    }) as core.EntryRow[];
    return core.recoveryViewsOf(rows);
  }
}
