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
