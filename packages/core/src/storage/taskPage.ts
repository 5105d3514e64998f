import { actionWords } from './recoveryView.js';
import { decodeStatusCursor, encodeStatusCursor } from './statusCursor.js';
import type { TaskPageQuery, TaskStatusPage } from './statusReader.js';

/**
 * A row of a status reader's task-page query, as both SQL dialects return it (PostgreSQL's
 * `count(*)` and `bigint` may come back as strings).
 */
export interface TaskPageRow {
  /** The task's id. */
  id: string;
  /** Its title. */
  title: string;
  /** Its status. */
  status: string;
  /** Why it is blocked; `NULL` unless it is. */
  blocked_reason: string | null;
  /** Attempts in the window (a count: text on PostgreSQL). */
  attempt_count: number | string;
  /** The newest attempt's time, epoch ms; `NULL` when none. */
  last_attempt: number | string | null;
  /** The topic of the newest recovery; `NULL` when it never looped. */
  last_recovery: string | null;
}

/**
 * The task id a task-page query starts after: the one in `query.cursor`, or `null` on the first page.
 * @throws InvalidInputError naming `cursor` when it is not one a status reader made.
 * @example const after = taskPageAfter({ limit: 100, attemptsSince: 0 }); // null
 */
export function taskPageAfter(query: TaskPageQuery): string | null {
  return query.cursor === undefined ? null : decodeStatusCursor(query.cursor, ['string'])[0];
}

/**
 * A {@link TaskStatusPage} from the rows of a task-page query that asked for `limit + 1` rows in
 * task-id order: the first `limit` tasks, and a cursor after the last of them when there are more.
 * @param total - the number of tasks stored.
 * @example taskPageOf(rows, 100, 2500).nextCursor; // a cursor when rows.length is 101
 */
export function taskPageOf(rows: readonly TaskPageRow[], limit: number, total: number): TaskStatusPage {
  const tasks = rows.slice(0, limit).map((row) => ({
    id: row.id,
    title: row.title,
    status: row.status,
    blockedReason: row.blocked_reason,
    attemptCount: Number(row.attempt_count),
    lastAttempt: row.last_attempt === null ? null : Number(row.last_attempt),
    lastRecovery: row.last_recovery,
    lastRecoveryText: row.last_recovery === null ? null : actionWords(row.last_recovery),
  }));
  const last = tasks.at(-1);
  return {
    tasks,
    total,
    nextCursor: rows.length > limit && last ? encodeStatusCursor([last.id]) : null,
  };
}
