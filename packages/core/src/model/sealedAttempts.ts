import type { Attempt } from './attempt.js';

/** Attempts built and validated by a detector; frozen, so they cannot change after the check. */
const sealed = new WeakSet<object>();

/**
 * Freezes an attempt the caller has validated and marks it so that the adapters it is written to
 * skip validating it again (validation happens once, at the public edge).
 * @example const attempt = sealAttempt({ taskId, timestamp, status, blockers: Object.freeze([...b]), completedWork, sessionId });
 */
export function sealAttempt(attempt: Attempt): Attempt {
  const frozen = Object.freeze(attempt);
  sealed.add(frozen);
  return frozen;
}

/**
 * Whether `value` is an attempt sealed by {@link sealAttempt} (validated and immutable).
 * @example if (!isSealedAttempt(attempt)) validateAttempt(attempt);
 */
export function isSealedAttempt(value: unknown): value is Attempt {
  return typeof value === 'object' && value !== null && sealed.has(value);
}
