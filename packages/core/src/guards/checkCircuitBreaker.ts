import { assertInteger, assertIterationHistory, type IterationHistoryEntry } from './iterationHistory.js';
import type { CircuitBreakerResult } from './safetyResults.js';

/** Seed 000's default number of consecutive failed validations that opens the breaker. */
export const DEFAULT_CIRCUIT_BREAKER_THRESHOLD = 3;

/**
 * Seed 000's circuit breaker: counts failed validations (`passed: false`) at the end of the history
 * and opens when there are `threshold` or more in a row. A pass resets the count; an entry
 * without `passed` ends the run too (it is not a failure).
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
  const consecutiveFailures = trailingFailures(iterationHistory);
  if (consecutiveFailures < threshold) return { open: false, consecutiveFailures };
  return {
    open: true,
    consecutiveFailures,
    message: `Circuit breaker OPEN: ${consecutiveFailures} consecutive validation failures (threshold: ${threshold}). Manual intervention required.`,
  };
}

function trailingFailures(history: readonly IterationHistoryEntry[]): number {
  let count = 0;
  for (let i = history.length - 1; i >= 0 && history[i]?.validationResult.passed === false; i--) count++;
  return count;
}
