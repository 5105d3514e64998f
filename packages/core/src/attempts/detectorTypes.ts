import type { Attempt, AttemptSummary } from '../model/attempt.js';
import type { ContextEntry } from '../model/contextEntry.js';
import type { Task, TaskStatus } from '../model/task.js';
import type { LoopDetectionResult } from './loopDetection.js';
import type { LoopType, Recommendation } from './loopVerdict.js';
import type { RecoveryOutcome } from './recoveryOutcome.js';

/** A recovery that was written. */
export type AppliedRecovery = Extract<RecoveryOutcome, { applied: true }>;

/** One recovery in `listRecoveries`: its context entry, read back. */
export interface RecoveryRecord {
  /** The context entry's id. */
  id: string;
  /** When it was written, epoch ms. */
  timestamp: number;
  /** The recovery: `force_next`, `unblock_authority` or `escalate`. */
  action: Recommendation;
  /** The loop it recovered from (`cross_task_cycle` for a cycle). */
  loopType: LoopType;
  /** The tasks it concerns (one, or the tasks of a cycle). */
  tasks: string[];
  /** The directive written for the autopilot. */
  content: string;
  /** The full entry, with the evidence in `metadata`. */
  entry: ContextEntry;
}

/** What `resolveEscalation` returns. */
export interface EscalationResolved {
  /** The task released. */
  taskId: string;
  /** The escalation that was open. */
  escalation: ContextEntry;
  /** The `loop_resolution` entry written. */
  entry: ContextEntry;
  /** The task after its transition; `null` when the state machine does not know the task. */
  task: Task | null;
}

/** Events of both detector runners (eventemitter3). */
export interface LoopDetectorEvents {
  /** An attempt was stored. */
  attemptRecorded: [attempt: Attempt];
  /** `detectLoop` found a loop. */
  loopDetected: [result: LoopDetectionResult];
  /** `applyRecovery` wrote a recovery. */
  recoveryApplied: [outcome: AppliedRecovery];
  /** `resolveEscalation` released an escalated task. */
  escalationResolved: [resolution: EscalationResolved];
}

/**
 * Which page of `getStatus` to read.
 * @example { limit: 100 } // then { limit: 100, cursor: page.nextCursor }
 */
export interface StatusPageQuery {
  /** Most tasks on the page. Integer 1..10,000. */
  limit: number;
  /** The previous page's `nextCursor`; absent for the first page. */
  cursor?: string;
}

/**
 * One page of `getStatus`.
 * @example { tasks: { T1: { attemptCount: 3, lastAttempt: 1760825000000 } }, total: 1, nextCursor: null }
 */
export interface StatusPage {
  /** The page's tasks, in task-id order, in the seed's dashboard shape. */
  tasks: Record<string, AttemptSummary>;
  /** Tasks with attempts inside the window, on all pages. */
  total: number;
  /** The cursor of the next page; `null` on the last page. */
  nextCursor: string | null;
}

/**
 * One attempt with a status transition of its task, recorded together by `recordAttemptWithTransition`.
 * @example { taskId: 'T1', status: 'blocked', blockers: ['no token'], completedWork: [], sessionId: 's1', reason: 'no token' }
 */
export interface AttemptWithTransition {
  /** The task attempted. */
  taskId: string;
  /** The attempt's status; the task moves to it when it is known and in another status. */
  status: TaskStatus;
  /** Blockers hit. */
  blockers: readonly string[];
  /** Work completed. */
  completedWork: readonly string[];
  /** The session that made the attempt. @default '' */
  sessionId?: string;
  /** The reason recorded with the transition. */
  reason: string;
}

/** What `listRecoveries` reads. */
export interface RecoveryQuery {
  /** Only the recoveries of this task (including cycles it was part of). */
  taskId?: string;
  /** Most recoveries returned. @default 100 */
  limit?: number;
}
