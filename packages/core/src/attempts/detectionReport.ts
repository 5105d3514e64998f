import type { Logger } from 'pino';
import { InvalidInputError } from '../kernel/errors.js';
import { assertNonEmptyString, describeValue } from '../kernel/validate.js';
import type { AppliedRecovery } from './detectorTypes.js';
import type { LoopDetectionResult } from './loopDetection.js';
import type { RecoveryOutcome } from './recoveryOutcome.js';

/**
 * Checks the argument of `applyRecovery` (both detector shells). Returns the "not a loop" outcome
 * when there is nothing to recover, `undefined` when the result is a loop to recover.
 * @throws InvalidInputError when `result` is not a detection result.
 */
export function notALoopOutcome(result: LoopDetectionResult): RecoveryOutcome | undefined {
  if (result === null || typeof result !== 'object' || typeof result.isLooping !== 'boolean') {
    throw new InvalidInputError(`result must be a LoopDetectionResult, got ${describeValue(result)}`);
  }
  assertNonEmptyString(result.taskId, 'result.taskId');
  if (!result.isLooping)
    return { applied: false, taskId: result.taskId, reason: 'The result is not a loop.' };
  return undefined;
}

/** Logs the seed's "Loop detected" line for a detection (both detector shells). */
export function logLoopDetected(log: Logger, result: LoopDetectionResult): void {
  log.warn(
    {
      taskId: result.taskId,
      loopType: result.loopType,
      attemptCount: result.attemptCount,
      recommendation: result.recommendation,
    },
    `Loop detected: ${result.loopType}, taskId=${result.taskId}, attemptCount=${result.attemptCount}, recommendation=${result.recommendation}`,
  );
}

/** Logs a written recovery (both detector shells): the grant or the escalation, then the recovery. */
export function logRecovery(log: Logger, outcome: AppliedRecovery, detection: LoopDetectionResult): void {
  const { taskId, action } = outcome;
  if (action === 'unblock_authority') {
    log.info({ taskId, blockers: detection.blockers }, `Granting unblock authority for ${taskId}`);
  } else if (action === 'escalate' && outcome.loopType === 'cross_task_cycle') {
    const tasks = detection.cycleTasks ?? [taskId];
    log.warn(
      { taskId, tasks, entryId: outcome.entry.id },
      `Escalating the cross-task cycle ${tasks.join(' → ')} to a human`,
    );
    return;
  } else if (action === 'escalate') {
    log.warn({ taskId, reason: detection.reason }, `Escalating ${taskId} to a human: ${detection.reason}`);
  }
  log.info({ taskId, action, entryId: outcome.entry.id }, `Loop recovery applied: ${action}`);
}
