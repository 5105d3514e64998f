import { type Clock, type ContextEntry, systemClock } from '@loopguard/core';
import type { LoopGuardDatabase } from '@loopguard/sqlite';
import type BetterSqlite3 from 'better-sqlite3';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { BreakerView } from './LiveFeed.js';
import type { RecoveriesQuery, StatusQuery } from './queryParams.js';
import { type RecoveryView, recoveryViewOf } from './recoveryEvent.js';

const RECOVERY_IN = "('loop_recovery', 'unblock_authority', 'loop_escalation')";

/**
 * One task on a `/status` page.
 * @example { id: 'T3.4.3', title: 'Design-system review', status: 'blocked', blockedReason: 'Loop escalation: …', attemptCount: 0, lastAttempt: null, lastRecovery: 'loop_escalation' }
 */
export interface TaskRow {
  id: string;
  title: string;
  status: string;
  blockedReason: string | null;
  /** Attempts inside the detector's window. */
  attemptCount: number;
  /** Newest attempt inside the window, epoch ms; `null` when none. */
  lastAttempt: number | null;
  /** The topic of the task's newest recovery; `null` when it never looped. */
  lastRecovery: string | null;
}

/**
 * A page of tasks (keyset paging by task id).
 * @example { tasks: [...], total: 100000, nextCursor: 'WyJUMDAwOTkiXQ' }
 */
export interface TaskPage {
  tasks: TaskRow[];
  /** Tasks in the database. */
  total: number;
  /** Pass as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}

/**
 * A page of recoveries, newest first.
 * @example { recoveries: [...], nextCursor: null }
 */
export interface RecoveryPage {
  recoveries: RecoveryView[];
  /** Pass as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}

/**
 * Options of {@link DatabaseReader}.
 * @example new DatabaseReader({ database, attemptWindowMs: 3_600_000 })
 */
export interface DatabaseReaderOptions {
  /** The loopguard database to read (it may be opened read-only). */
  database: LoopGuardDatabase;
  /** The detector's attempt window: `attemptCount` counts attempts this recent. @default 3600000 */
  attemptWindowMs?: number;
  /** Source of "now" for the window. @default systemClock */
  clock?: Clock;
}

/**
 * One stagnation-breaker transition of a `loopguard run`.
 * @example { id: 3, runId: 'r1', at: 1760825000000, from: 'CLOSED', state: 'OPEN', reason: 'no file changes in 3 iterations' }
 */
export interface BreakerTransitionRow {
  id: number;
  runId: string;
  at: number;
  from: string;
  /** The state entered. */
  state: string;
  reason: string;
}

interface TaskSqlRow {
  id: string;
  title: string;
  status: string;
  blocked_reason: string | null;
  attempt_count: number;
  last_attempt: number | null;
  last_recovery: string | null;
}

interface EntrySqlRow {
  id: number;
  timestamp: number;
  entry_type: string;
  topic: string;
  content: string;
  related_tasks: string;
  confidence: number;
  metadata: string;
}

/**
 * Reads what the status server shows from a loopguard SQLite database with paged, index-backed
 * queries (no query scans all tasks or all attempts).
 * @example
 * const reader = new DatabaseReader({ database: openLoopGuardDatabase('state.db', { readonly: true }) });
 * reader.taskPage({ limit: 100, cursor: undefined });
 */
export class DatabaseReader {
  private readonly db: BetterSqlite3.Database;
  private readonly windowMs: number;
  private readonly clock: Clock;
  private readonly taskStmt: BetterSqlite3.Statement<[{ since: number; after: string; limit: number }]>;
  private readonly countTasksStmt: BetterSqlite3.Statement<[]>;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly tables = new Set<string>();

  constructor(options: DatabaseReaderOptions) {
    this.db = options.database.db;
    this.windowMs = options.attemptWindowMs ?? 3_600_000;
    this.clock = options.clock ?? systemClock;
    this.taskStmt = this.db.prepare(`
      SELECT t.id, t.title, t.status, t.blocked_reason,
        (SELECT count(*) FROM attempts AS a WHERE a.task_id = t.id AND a.timestamp >= @since) AS attempt_count,
        (SELECT max(a.timestamp) FROM attempts AS a WHERE a.task_id = t.id AND a.timestamp >= @since) AS last_attempt,
        (SELECT e.topic FROM context_entry_tasks AS l JOIN context_entries AS e ON e.id = l.entry_id
          WHERE l.task_id = t.id AND e.topic IN ${RECOVERY_IN}
          ORDER BY l.timestamp DESC, l.entry_id DESC LIMIT 1) AS last_recovery
      FROM tasks AS t
      WHERE t.id > @after ORDER BY t.id LIMIT @limit`);
    this.countTasksStmt = this.db.prepare('SELECT count(*) FROM tasks').pluck();
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

  /** A page of tasks with their attempt counts in the window and their newest recovery. */
  taskPage(query: StatusQuery): TaskPage {
    const after = query.cursor === undefined ? '' : decodeCursor(query.cursor, ['string'])[0];
    const since = this.clock.now() - this.windowMs;
    const rows = this.taskStmt.all({ since, after, limit: query.limit + 1 }) as TaskSqlRow[];
    const more = rows.length > query.limit;
    const tasks = rows.slice(0, query.limit).map((row) => ({
      id: row.id,
      title: row.title,
      status: row.status,
      blockedReason: row.blocked_reason,
      attemptCount: row.attempt_count,
      lastAttempt: row.last_attempt,
      lastRecovery: row.last_recovery,
    }));
    const last = tasks.at(-1);
    return {
      tasks,
      total: this.countTasksStmt.get() as number,
      nextCursor: more && last ? encodeCursor([last.id]) : null,
    };
  }

  /** A page of recovery entries, newest first, filtered by topic, task and time. */
  recoveryPage(query: RecoveriesQuery): RecoveryPage {
    const byTask = query.taskId !== undefined;
    const time = byTask ? 'l.timestamp' : 'e.timestamp';
    const id = byTask ? 'l.entry_id' : 'e.id';
    const where = [`e.topic IN ${RECOVERY_IN}`];
    const params: (string | number)[] = [];
    if (byTask) {
      where.push('l.task_id = ?');
      params.push(query.taskId as string);
    }
    if (query.topic !== undefined) {
      where.push('e.topic = ?');
      params.push(query.topic);
    }
    if (query.since !== undefined) {
      where.push(`${time} >= ?`);
      params.push(query.since);
    }
    if (query.until !== undefined) {
      where.push(`${time} < ?`);
      params.push(query.until);
    }
    if (query.cursor !== undefined) {
      const [timestamp, entryId] = decodeCursor(query.cursor, ['number', 'number']);
      where.push(`(${time} < ? OR (${time} = ? AND ${id} < ?))`);
      params.push(timestamp, timestamp, entryId);
    }
    const from = byTask
      ? 'context_entry_tasks AS l JOIN context_entries AS e ON e.id = l.entry_id'
      : 'context_entries AS e';
    const sql = `SELECT e.* FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${time} DESC, ${id} DESC LIMIT ?`;
    const rows = this.cached(sql).all(...params, query.limit + 1) as EntrySqlRow[];
    const more = rows.length > query.limit;
    const recoveries = rows.slice(0, query.limit).map((row) => recoveryViewOf(entryOf(row)));
    const last = recoveries.at(-1);
    return {
      recoveries,
      nextCursor: more && last ? encodeCursor([last.timestamp, Number(last.id)]) : null,
    };
  }

  /** Recovery entries with an id above `afterId`, oldest first (at most `limit`): what the follower reads. */
  recoveriesAfter(afterId: number, limit: number): RecoveryView[] {
    const rows = this.cached(
      `SELECT * FROM context_entries WHERE id > ? AND topic IN ${RECOVERY_IN} ORDER BY id LIMIT ?`,
    ).all(afterId, limit) as EntrySqlRow[];
    return rows.map((row) => recoveryViewOf(entryOf(row)));
  }

  /** The highest context-entry id (0 when none). */
  maxEntryId(): number {
    return (this.cached('SELECT coalesce(max(id), 0) FROM context_entries').pluck().get() as number) ?? 0;
  }

  /** The highest attempt id (0 when none); it grows by one per attempt appended. */
  maxAttemptId(): number {
    return (this.cached('SELECT coalesce(max(id), 0) FROM attempts').pluck().get() as number) ?? 0;
  }

  /**
   * A stamp that changes whenever the database changes: another connection's commit
   * (`data_version`) or a write through this connection (`total_changes()`).
   */
  changeStamp(): string {
    return this.cached("SELECT (SELECT data_version FROM pragma_data_version()) || ':' || total_changes()")
      .pluck()
      .get() as string;
  }

  /** Whether `table` exists (tables of later schema versions appear when another process migrates). */
  private hasTable(table: string): boolean {
    if (this.tables.has(table)) return true;
    const found = this.cached("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .pluck()
      .get(table);
    if (found !== undefined) this.tables.add(table);
    return found !== undefined;
  }

  /**
   * The stagnation breaker of the newest `loopguard run` (schema 4's `runs` table); `undefined`
   * when the file has no runs.
   */
  latestBreaker(): BreakerView | undefined {
    if (!this.hasTable('runs')) return undefined;
    const row = this.cached(
      'SELECT id, status, breaker_state, reason, updated_at FROM runs ORDER BY started_at DESC, rowid DESC LIMIT 1',
    ).get() as
      | { id: string; status: string; breaker_state: string; reason: string | null; updated_at: number }
      | undefined;
    if (row === undefined) return undefined;
    return {
      state: row.breaker_state,
      runId: row.id,
      runStatus: row.status,
      reason: row.reason,
      updatedAt: row.updated_at,
    };
  }

  /** Breaker transitions (schema 4's `breaker_transitions`) with an id above `afterId`, oldest first. */
  breakerTransitionsAfter(afterId: number, limit: number): BreakerTransitionRow[] {
    if (!this.hasTable('breaker_transitions')) return [];
    return this.cached(
      'SELECT id, run_id AS runId, at, from_state AS "from", to_state AS state, reason FROM breaker_transitions WHERE id > ? ORDER BY id LIMIT ?',
    ).all(afterId, limit) as BreakerTransitionRow[];
  }

  /** The highest breaker transition id (0 when none or no such table). */
  maxBreakerTransitionId(): number {
    if (!this.hasTable('breaker_transitions')) return 0;
    return this.cached('SELECT coalesce(max(id), 0) FROM breaker_transitions').pluck().get() as number;
  }

  /** Attempts stored now (one pass over the attempts index; run once at start). */
  countAttempts(): number {
    return this.cached('SELECT count(*) FROM attempts').pluck().get() as number;
  }

  /** The newest attempt's time; `null` when there is none. */
  lastAttemptAt(): number | null {
    return this.cached('SELECT max(timestamp) FROM attempts').pluck().get() as number | null;
  }

  /** Recovery entries counted by topic and loop type (one pass over the recoveries; run once at start). */
  recoveryCounts(): { topic: string; loopType: string | null; count: number }[] {
    return this.db
      .prepare(
        `SELECT topic, json_extract(metadata, '$.loopType') AS loopType, count(*) AS count
         FROM context_entries WHERE topic IN ${RECOVERY_IN} GROUP BY 1, 2`,
      )
      .all() as { topic: string; loopType: string | null; count: number }[];
  }
}

function entryOf(row: EntrySqlRow): ContextEntry {
  return {
    id: String(row.id),
    timestamp: row.timestamp,
    entryType: row.entry_type as ContextEntry['entryType'],
    topic: row.topic,
    content: row.content,
    relatedTasks: JSON.parse(row.related_tasks) as string[],
    confidence: row.confidence,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}
