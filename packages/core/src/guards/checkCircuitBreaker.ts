import { ConsecutiveFailuresGuard, DEFAULT_CIRCUIT_BREAKER_THRESHOLD } from './ConsecutiveFailuresGuard.js';
import { guardHistoryOf, guardStateOf } from './guardState.js';
import { assertInteger, assertIterationHistory, type IterationHistoryEntry } from './iterationHistory.js';
import type { CircuitBreakerResult } from './safetyResults.js';

/**
 * Seed 000's circuit breaker, decided by {@link ConsecutiveFailuresGuard}: counts failed
 * validations (`passed: false`) at the end of the history and opens when there are `threshold` or
 * more in a row. A pass resets the count; an entry without `passed` ends the run too (it is not a failure).
 *
 * @param iterationHistory - finished iterations, oldest first.
 * @param threshold - failures in a row that open the breaker, integer ≥ 1. @default 3
 * @throws InvalidInputError when the history or the threshold is malformed.
 * @example
 * checkCircuitBreaker([1, 2, 3].map((i) => ({ iteration: i, validationResult: { passed: false } })));
 * // { open: true, consecutiveFailures: 3,
 * //   message: 'Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3). Manual intervention required.' }
 */
export function checkCircuitBreaker(
  iterationHistory: readonly IterationHistoryEntry[],
  threshold: number = DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
): CircuitBreakerResult {
  assertIterationHistory(iterationHistory, 'iterationHistory');
  assertInteger(threshold, 'threshold', 1);
  const state = guardStateOf({
    iteration: iterationHistory.length + 1,
    startedAt: null,
    now: 0,
    history: guardHistoryOf(iterationHistory),
  });
  const verdict = new ConsecutiveFailuresGuard(threshold).check(state);
  const { consecutiveFailures } = state;
  return verdict === null
    ? { open: false, consecutiveFailures }
    : { open: true, consecutiveFailures, message: verdict.message };
}
