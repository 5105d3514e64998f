import { guardHistoryOf, guardStateOf } from './guardState.js';
import { assertIterationHistory, type IterationHistoryEntry } from './iterationHistory.js';
import { QualityRegressionGuard } from './QualityRegressionGuard.js';
import type { QualityRegressionResult } from './safetyResults.js';

/**
 * Seed 000's quality regression, decided by {@link QualityRegressionGuard}: a regression is the last
 * 3 scored iterations all declining (an iteration declines when its score is below the best before
 * it and not above the previous one). `consecutiveDeclines` counts the steps between those
 * declining iterations, so it is 2 when the regression first fires, as in the seed's example and message.
 *
 * @param iterationHistory - finished iterations, oldest first.
 * @throws InvalidInputError when the history is malformed.
 * @example
 * checkQualityRegression([true, false, false, false].map((passed, i) => ({ iteration: i + 1, validationResult: { passed } })));
 * // { regression: true, consecutiveDeclines: 2, decliningIterations: 3,
 * //   message: 'Quality regression detected: Validation scores declined 2 consecutive times. Consider changing approach.' }
 */
export function checkQualityRegression(
  iterationHistory: readonly IterationHistoryEntry[],
): QualityRegressionResult {
  assertIterationHistory(iterationHistory, 'iterationHistory');
  const state = guardStateOf({
    iteration: iterationHistory.length + 1,
    startedAt: null,
    now: 0,
    history: guardHistoryOf(iterationHistory),
  });
  const { consecutiveDeclines, decliningIterations, verdict } = new QualityRegressionGuard().assess(state);
  return verdict === null
    ? { regression: false, consecutiveDeclines, decliningIterations }
    : { regression: true, consecutiveDeclines, decliningIterations, message: verdict.message };
}
