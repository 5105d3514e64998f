import type { Attempt } from './attempt.js';
import { InvalidInputError } from './errors.js';
import {
  assertFiniteNumber,
  assertNonEmptyString,
  assertStringArray,
  assertTaskStatus,
  describeValue,
} from './validate.js';

/**
 * Rejects anything that is not a well-formed {@link Attempt}, naming the argument, before a store writes it.
 * @param name - how the caller calls the argument, e.g. `attempts[2]`.
 * @throws InvalidInputError naming the field and its problem.
 * @example
 * validateAttemptInput({ taskId: 'T1', timestamp: 0, status: 'done', blockers: [], completedWork: [], sessionId: '' }, 'attempt');
 */
export function validateAttemptInput(attempt: Attempt, name: string): void {
  if (attempt === null || typeof attempt !== 'object') {
    throw new InvalidInputError(`${name} must be an attempt object, got ${describeValue(attempt)}`);
  }
  assertNonEmptyString(attempt.taskId, `${name}.taskId`);
  assertFiniteNumber(attempt.timestamp, `${name}.timestamp`);
  assertTaskStatus(attempt.status, `${name}.status`);
  assertStringArray(attempt.blockers, `${name}.blockers`);
  assertStringArray(attempt.completedWork, `${name}.completedWork`);
  if (typeof attempt.sessionId !== 'string') {
    throw new InvalidInputError(
      `${name}.sessionId must be a string, got ${describeValue(attempt.sessionId)}`,
    );
  }
}
