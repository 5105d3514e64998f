import { assertIterationHistory, type IterationHistoryEntry } from './iterationHistory.js';
import type { QualityRegressionResult } from './safetyResults.js';

/** Seed 000's regression window: this many declining iterations in a row are a regression. */
export const QUALITY_REGRESSION_WINDOW = 3;

/**
 * The quality score of one iteration: `validationResult.score` when given, else 1 for a pass and 0
 * for a failure; `null` when the entry says neither (such entries are skipped).
 * @example qualityScore({ iteration: 1, validationResult: { passed: true } }); // 1
 */
export function qualityScore(entry: IterationHistoryEntry): number | null {
  const { score, passed } = entry.validationResult;
  if (score !== undefined) return score;
  if (passed !== undefined) return passed ? 1 : 0;
  return null;
}

/**
 * Declining iterations in a row at the end of `scores`. An iteration declines when its score is
 * below the best score seen before it and not higher than the previous score: falling, or staying
 * down after a fall. The first score never declines.
 */
export function trailingDeclines(scores: readonly number[]): number {
  let best = Number.NEGATIVE_INFINITY;
  let previous: number | undefined;
  let run = 0;
  for (const score of scores) {
    const declines = previous !== undefined && score < best && score <= previous;
    run = declines ? run + 1 : 0;
    best = Math.max(best, score);
    previous = score;
  }
  return run;
}

/**
 * Seed 000's quality regression, with the rule of DESIGN.md decision 1: a regression is the last
 * {@link QUALITY_REGRESSION_WINDOW} (3) scored iterations all declining (see {@link trailingDeclines}).
 * `consecutiveDeclines` counts the steps between those declining iterations, so it is 2 when the
 * regression first fires, as in the seed's example and message.
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
  const scores = iterationHistory.map(qualityScore).filter((score): score is number => score !== null);
  const decliningIterations = trailingDeclines(scores);
  const consecutiveDeclines = Math.max(0, decliningIterations - 1);
  if (decliningIterations < QUALITY_REGRESSION_WINDOW) {
    return { regression: false, consecutiveDeclines, decliningIterations };
  }
  return {
    regression: true,
    consecutiveDeclines,
    decliningIterations,
    message: `Quality regression detected: Validation scores declined ${consecutiveDeclines} consecutive times. Consider changing approach.`,
  };
}
