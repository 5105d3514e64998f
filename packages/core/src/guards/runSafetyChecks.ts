import { z } from 'zod';
import { parseOptions } from '../kernel/parseOptions.js';
import { ConsecutiveFailuresGuard, DEFAULT_CIRCUIT_BREAKER_THRESHOLD } from './ConsecutiveFailuresGuard.js';
import type { GuardVerdict } from './Guard.js';
import { guardHistoryOf, guardStateOf, runGuards } from './guardState.js';
import {
  assertInteger,
  assertIterationHistory,
  type IterationConfig,
  type IterationHistoryEntry,
} from './iterationHistory.js';
import { MaxIterationsGuard } from './MaxIterationsGuard.js';
import { QualityRegressionGuard } from './QualityRegressionGuard.js';
import type { CombinedSafetyResult } from './safetyResults.js';
import { SEED_000_NAMES } from './seedGuardNames.js';
import { ThrashingGuard } from './ThrashingGuard.js';

const iterationConfigSchema = z.looseObject({
  maxIterations: z.number().int().min(1),
  completionPromises: z.array(z.string()),
  validationRules: z.array(z.unknown()).optional(),
  circuitBreakerThreshold: z.number().int().min(1).optional(),
});

/**
 * Seed 000's guards run by the guard engine, in its priority order (max iterations, consecutive
 * failures, quality regression, thrashing), with the history validated and analysed once. The
 * verdict names the guard in the project's vocabulary; {@link runSafetyChecks} translates it.
 *
 * @throws ConfigurationError when `config` is malformed; InvalidInputError when an argument is.
 * @example seed000Verdict(11, { maxIterations: 10, completionPromises: [] }, [])?.guard // 'max_iterations'
 */
export function seed000Verdict(
  iterationNumber: number,
  config: IterationConfig,
  history: readonly IterationHistoryEntry[],
): GuardVerdict | null {
  const { maxIterations, circuitBreakerThreshold } = parseOptions(
    iterationConfigSchema,
    config,
    'IterationConfig',
  );
  assertInteger(iterationNumber, 'iterationNumber', 0);
  assertIterationHistory(history, 'history');
  const state = guardStateOf({
    iteration: iterationNumber,
    startedAt: null,
    now: 0,
    history: guardHistoryOf(history),
  });
  return runGuards(
    [
      new MaxIterationsGuard(maxIterations),
      new ConsecutiveFailuresGuard(circuitBreakerThreshold ?? DEFAULT_CIRCUIT_BREAKER_THRESHOLD),
      new QualityRegressionGuard(),
      new ThrashingGuard(),
    ],
    state,
  );
}

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
  const verdict = seed000Verdict(iterationNumber, config, history);
  if (verdict === null) return { canContinue: true };
  const blockedBy = SEED_000_NAMES[verdict.guard as keyof typeof SEED_000_NAMES];
  return { canContinue: false, blockedBy, message: verdict.message };
}
