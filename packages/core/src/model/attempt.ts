import type { TaskStatus } from './task.js';

/** One attempt of the autopilot at a task, as the seed's `recordAttempt` records it. */
export interface Attempt {
  /** The task attempted. */
  readonly taskId: string;
  /** When the attempt was recorded, epoch ms (from the injected clock). */
  readonly timestamp: number;
  /** The task's status at the attempt. */
  readonly status: TaskStatus;
  /** Blockers encountered (a frozen copy of the caller's array). */
  readonly blockers: readonly string[];
  /** Work completed in the attempt (a frozen copy of the caller's array). */
  readonly completedWork: readonly string[];
  /** The autopilot session that made the attempt. */
  readonly sessionId: string;
}

/** Per-task summary in the seed's dashboard shape. */
export interface AttemptSummary {
  /** Attempts inside the window. */
  attemptCount: number;
  /** Time of the newest attempt, epoch ms. */
  lastAttempt: number;
}

/**
 * Which page of per-task summaries to read: at most `limit` tasks, in task-id order, after `cursor`.
 * @example { limit: 100 } // the first page; then { limit: 100, cursor: page.nextCursor }
 */
export interface AttemptSummaryPageQuery {
  /** Most tasks on the page. Integer ≥ 1. */
  limit: number;
  /** The `nextCursor` of the previous page; absent for the first page. */
  cursor?: string;
}

/**
 * One page of per-task summaries, in task-id order.
 * @example { tasks: [['T1', { attemptCount: 3, lastAttempt: 1760825000000 }]], total: 1, nextCursor: null }
 */
export interface AttemptSummaryPage {
  /** The page's tasks with their summaries, in task-id order. */
  tasks: Array<[taskId: string, summary: AttemptSummary]>;
  /** Tasks with attempts in the window, on every page. */
  total: number;
  /** Pass it as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}
