import { guardStateOf } from './guardState.js';
import { assertInteger } from './iterationHistory.js';
import { MaxIterationsGuard } from './MaxIterationsGuard.js';
import type { SafetyCheckResult } from './safetyResults.js';

/**
 * Seed 000's hard limit, decided by {@link MaxIterationsGuard}. Iterations are 1-based and
 * `currentIteration` is the iteration about to run: it is blocked when `currentIteration >
 * maxIterations` (with a maximum of 10, iterations 1..10 run and 11 is blocked). Compare
 * {@link checkSafetyGuards}, which counts finished iterations.
 *
 * @param currentIteration - the iteration about to run, integer ≥ 0.
 * @param maxIterations - the limit, integer ≥ 1.
 * @throws InvalidInputError when an argument is not such an integer.
 * @example
 * checkMaxIterations(11, 10);
 * // { allowed: false, message: 'Iteration 11 exceeds maximum of 10. Circuit breaker triggered.' }
 */
export function checkMaxIterations(currentIteration: number, maxIterations: number): SafetyCheckResult {
  assertInteger(currentIteration, 'currentIteration', 0);
  assertInteger(maxIterations, 'maxIterations', 1);
  const state = guardStateOf({ iteration: currentIteration, startedAt: null, now: 0, history: [] });
  const verdict = new MaxIterationsGuard(maxIterations).check(state);
  return verdict === null ? { allowed: true } : { allowed: false, message: verdict.message };
}
