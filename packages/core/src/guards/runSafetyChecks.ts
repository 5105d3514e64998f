import { z } from 'zod';
import { parseOptions } from '../parseOptions.js';
import { checkCircuitBreaker, DEFAULT_CIRCUIT_BREAKER_THRESHOLD } from './checkCircuitBreaker.js';
import { checkMaxIterations } from './checkMaxIterations.js';
import { checkQualityRegression } from './checkQualityRegression.js';
import { checkThrashing } from './checkThrashing.js';
import {
  assertIterationHistory,
  type IterationConfig,
  type IterationHistoryEntry,
} from './iterationHistory.js';
import type { CombinedSafetyResult, SafetyBlocker } from './safetyResults.js';

const iterationConfigSchema = z.looseObject({
  maxIterations: z.number().int().min(1),
  completionPromises: z.array(z.string()),
  validationRules: z.array(z.unknown()).optional(),
  circuitBreakerThreshold: z.number().int().min(1).optional(),
});

/**
 * Seed 000's combined runner: max iterations, circuit breaker, quality regression, thrashing, in
 * that priority order; the first that blocks wins. Thrashing uses its default threshold (5).
 *
 * @param iterationNumber - the iteration about to run (1-based).
 * @param config - `maxIterations` and `circuitBreakerThreshold` (default 3) are read.
 * @param history - finished iterations, oldest first.
 * @throws ConfigurationError when `config` is malformed; InvalidInputError when an argument is.
 * @example
 * runSafetyChecks(11, { maxIterations: 10, completionPromises: ['All tests pass'] }, []);
 * // { canContinue: false, blockedBy: 'max_iterations', message: 'Iteration 11 exceeds maximum of 10. Circuit breaker triggered.' }
 */
export function runSafetyChecks(
  iterationNumber: number,
  config: IterationConfig,
  history: readonly IterationHistoryEntry[],
): CombinedSafetyResult {
  const { maxIterations, circuitBreakerThreshold } = parseOptions(
    iterationConfigSchema,
    config,
    'IterationConfig',
  );
  assertIterationHistory(history, 'history');

  const iterations = checkMaxIterations(iterationNumber, maxIterations);
  if (!iterations.allowed) return blocked('max_iterations', iterations.message);
  const breaker = checkCircuitBreaker(history, circuitBreakerThreshold ?? DEFAULT_CIRCUIT_BREAKER_THRESHOLD);
  if (breaker.open) return blocked('circuit_breaker', breaker.message);
  const quality = checkQualityRegression(history);
  if (quality.regression) return blocked('quality_regression', quality.message);
  const thrashing = checkThrashing(history);
  if (thrashing.thrashing) return blocked('thrashing', thrashing.message);
  return { canContinue: true };
}

function blocked(blockedBy: SafetyBlocker, message: string | undefined): CombinedSafetyResult {
  return { canContinue: false, blockedBy, message: message ?? blockedBy };
}
