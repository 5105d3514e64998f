import { InvalidInputError } from '../kernel/errors.js';
import { assertFiniteNumber, assertStringArray, copyStringArray, describeValue } from '../kernel/validate.js';
import type { Attempt, AttemptSummaryPageQuery } from './attempt.js';
import { isSealedAttempt, sealAttempt } from './sealedAttempts.js';
import { assertBoundedList, assertTaskId, boundedList, SIZE_LIMITS } from './sizeLimits.js';
import { assertTaskStatus } from './task.js';

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
  assertTaskId(attempt.taskId, `${name}.taskId`);
  assertFiniteNumber(attempt.timestamp, `${name}.timestamp`);
  assertTaskStatus(attempt.status, `${name}.status`);
  assertStringArray(attempt.blockers, `${name}.blockers`);
  assertStringArray(attempt.completedWork, `${name}.completedWork`);
  assertBoundedList(attempt.blockers, `${name}.blockers`);
  assertBoundedList(attempt.completedWork, `${name}.completedWork`);
  if (typeof attempt.sessionId !== 'string') {
    throw new InvalidInputError(
      `${name}.sessionId must be a string, got ${describeValue(attempt.sessionId)}`,
    );
  }
}

const EMPTY: readonly string[] = Object.freeze([]);

/** A recorded list cut to `SIZE_LIMITS.listItems` items of `SIZE_LIMITS.itemLength` characters (with markers). */
function bounded(values: string[]): string[] {
  return boundedList(values, SIZE_LIMITS.listItems, SIZE_LIMITS.itemLength) as string[];
}

/** `values` (a fresh copy) frozen; empty arrays share one frozen instance. */
function frozen(values: string[]): readonly string[] {
  return values.length === 0 ? EMPTY : Object.freeze(values);
}

/**
 * The attempt the seed's `recordAttempt(taskId, status, blockers, completedWork, sessionId)` records:
 * the arguments validated (naming the bad one), the arrays copied (the caller's are never changed)
 * and sealed (frozen, and marked validated so adapters skip checking it again). Both detector
 * shells build their attempts with it.
 * @throws InvalidInputError naming the argument.
 * @example
 * const attempt = newAttempt('T1', 'blocked', ['missing token'], [], 'session_1', clock.now());
 */
export function newAttempt(
  taskId: string,
  status: string,
  blockers: readonly string[],
  completedWork: readonly string[],
  sessionId: string,
  timestamp: number,
): Attempt {
  assertTaskId(taskId, 'taskId');
  assertTaskStatus(status, 'status');
  const blockersCopy = copyStringArray(blockers, 'blockers');
  const completedWorkCopy = copyStringArray(completedWork, 'completedWork');
  if (typeof sessionId !== 'string') {
    throw new InvalidInputError(`sessionId must be a string, got ${describeValue(sessionId)}`);
  }
  return sealAttempt({
    taskId,
    timestamp,
    status,
    blockers: frozen(bounded(blockersCopy)),
    completedWork: frozen(bounded(completedWorkCopy)),
    sessionId,
  });
}

/**
 * `attempt` (validated, sealed) with another timestamp: the attempt itself when it already has it.
 * @example restamped(attempt, newest).timestamp === newest; // true
 */
export function restamped(attempt: Attempt, timestamp: number): Attempt {
  return timestamp === attempt.timestamp ? attempt : sealAttempt({ ...attempt, timestamp });
}

/**
 * Checks an attempt an adapter is asked to store: an attempt a detector built was validated and
 * sealed there, once; any other is validated here.
 * @throws InvalidInputError naming `name` and the field.
 */
export function checkStoredAttempt(attempt: Attempt, name: string): void {
  if (!isSealedAttempt(attempt)) validateAttemptInput(attempt, name);
}

/**
 * Checks the attempts an adapter's `appendMany` is asked to store: an array, each checked as
 * {@link checkStoredAttempt} does (named `attempts[i]`).
 * @throws InvalidInputError naming the argument or the attempt and field.
 */
export function checkStoredAttempts(attempts: readonly Attempt[]): void {
  if (!Array.isArray(attempts)) {
    throw new InvalidInputError(`attempts must be an array of attempts, got ${describeValue(attempts)}`);
  }
  attempts.forEach((attempt, i) => {
    checkStoredAttempt(attempt, `attempts[${i}]`);
  });
}

/**
 * Checks a `summarizePage` query (every adapter): `limit` an integer ≥ 1, `cursor` (the last task id
 * of the previous page) a non-empty string when given.
 * @throws InvalidInputError naming the field.
 */
export function validatePageQuery(query: AttemptSummaryPageQuery): AttemptSummaryPageQuery {
  if (query === null || typeof query !== 'object') {
    throw new InvalidInputError(`query must be { limit, cursor? }, got ${describeValue(query)}`);
  }
  if (!Number.isInteger(query.limit) || query.limit < 1) {
    throw new InvalidInputError(`query.limit must be an integer ≥ 1, got ${describeValue(query.limit)}`);
  }
  if (query.cursor !== undefined && (typeof query.cursor !== 'string' || query.cursor === '')) {
    throw new InvalidInputError(
      `query.cursor must be a non-empty string, got ${describeValue(query.cursor)}`,
    );
  }
  return query;
}
