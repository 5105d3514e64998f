import type { ContextEntryInput, RECOVERY_TOPICS } from '../model/contextEntry.js';
import { evidenceAttempt } from '../model/sizeLimits.js';
import type { Task, TaskStatus } from '../model/task.js';
import type { DetectionOptions, LoopDetectionResult } from './loopDetection.js';
import type { LoopType, LoopVerdict, Recommendation } from './loopVerdict.js';
import {
  escalationContent,
  forceNextContent,
  UNBLOCK_PERMISSIONS,
  unblockAuthorityContent,
} from './recoveryContent.js';

/**
 * One status transition a recovery makes.
 * @example { taskId: 'T1', status: 'done', reason: 'Loop recovery (completed_task_revisit): force next task' }
 */
export interface PlannedTransition {
  /** The task moved. */
  taskId: string;
  /** Its new status. */
  status: TaskStatus;
  /** The reason recorded in the task's history. */
  reason: string;
}

/**
 * Every write of one recovery, planned from a detection by {@link planRecovery} and applied by a
 * detector shell inside one storage transaction, in this order: transitions, entries, clears.
 * @example const plan = planRecovery(result, options, stateMachine.getTask(result.taskId));
 */
export interface RecoveryPlan {
  /** The task recovered. */
  taskId: string;
  /** The recovery. */
  action: Recommendation;
  /** The loop recovered from. */
  loopType: LoopType;
  /** Status transitions to make (none when the task is unknown or already in the status). */
  transitions: PlannedTransition[];
  /** Context entries to add; the first is the recovery's record, with the evidence in its metadata. */
  entries: ContextEntryInput[];
  /** Tasks whose attempts are cleared, so that a new loop needs fresh attempts. */
  clearAttempts: string[];
}

const TOPIC_OF: Record<Recommendation, (typeof RECOVERY_TOPICS)[number]> = {
  force_next: 'loop_recovery',
  unblock_authority: 'unblock_authority',
  escalate: 'loop_escalation',
};

/**
 * Plans the recovery of a looping detection (pure: the caller reads `task` and applies the plan).
 * - `force_next`: the task moves to `done`; an entry on topic `loop_recovery` says not to revisit it.
 * - `unblock_authority`: an entry on topic `unblock_authority` grants authority scoped to the task and its blockers.
 * - `escalate`: the task moves to `blocked`; an entry on topic `loop_escalation` gives the reason.
 *
 * @param result - a detection with `isLooping: true`.
 * @param options - the options in force (recorded as the thresholds in the entry's metadata).
 * @param task - the task as stored, or `undefined` when the state machine does not know it.
 * @returns the plan, or `null` when `result` is not a loop.
 * @example
 * const plan = planRecovery(judgeAttempts(input), options, stateMachine.getTask('T1'));
 */
export function planRecovery(
  result: LoopDetectionResult,
  options: DetectionOptions,
  task: Task | undefined,
): RecoveryPlan | null {
  const { taskId, loopType, recommendation: action } = result;
  if (!result.isLooping || loopType === null || action === null) return null;
  const verdict: LoopVerdict = {
    loopType,
    recommendation: action,
    attemptCount: result.attemptCount,
    reason: result.reason,
  };
  const metadata: Record<string, unknown> = {
    taskId,
    loopType,
    recommendation: action,
    attemptCount: result.attemptCount,
    blockers: result.blockers,
    reason: result.reason,
    thresholds: {
      maxAttempts: options.maxAttempts,
      maxAttemptsBeforeForceNext: options.maxAttemptsBeforeForceNext,
      enableAutoUnblock: options.enableAutoUnblock,
      attemptWindow: options.attemptWindow,
      maxAttemptsPerTask: options.maxAttemptsPerTask ?? null,
    },
    evidence: result.evidence.map(evidenceAttempt),
    taskKnown: task !== undefined,
  };
  const transitions: PlannedTransition[] = [];
  let content: string;
  if (action === 'force_next') {
    content = forceNextContent(taskId, verdict);
    if (task !== undefined && task.status !== 'done') {
      transitions.push({ taskId, status: 'done', reason: `Loop recovery (${loopType}): force next task` });
    }
  } else if (action === 'unblock_authority') {
    content = unblockAuthorityContent(taskId, result.blockers, result.attemptCount);
    metadata.scope = { taskId, blockers: result.blockers };
    metadata.permissions = [...UNBLOCK_PERMISSIONS];
  } else {
    content = escalationContent(taskId, verdict);
    if (task !== undefined) {
      transitions.push({ taskId, status: 'blocked', reason: `Loop escalation: ${result.reason}` });
    }
  }
  return {
    taskId,
    action,
    loopType,
    transitions,
    entries: [
      {
        entryType: action === 'force_next' ? 'constraint' : 'decision',
        topic: TOPIC_OF[action],
        content,
        relatedTasks: [taskId],
        confidence: 1,
        metadata,
      },
    ],
    clearAttempts: [taskId],
  };
}
