import { checkQualityRegression, QUALITY_REGRESSION_WINDOW, qualityScore } from './checkQualityRegression.js';
import type { Guard, GuardState, GuardVerdict } from './Guard.js';
import type { IterationHistoryEntry } from './iterationHistory.js';

/**
 * Blocks when the last 3 scored iterations all declined (seed 000, DESIGN.md decision 1). Scores
 * come from `score`, else `passed`; infrastructure errors are skipped.
 * @example new QualityRegressionGuard() // message: 'Quality regression detected: Validation scores declined 2 consecutive times. Consider changing approach.'
 */
export class QualityRegressionGuard implements Guard {
  readonly name = 'quality_regression';

  /** Blocks on a regression over the window. */
  check(state: GuardState): GuardVerdict | null {
    const entries = state.history
      .filter((item) => !item.infrastructure)
      .map((item) => toHistoryEntry(item.entry));
    const result = checkQualityRegression(entries);
    if (!result.regression) return null;
    const scored = entries.filter((entry) => qualityScore(entry) !== null);
    return {
      guard: this.name,
      message: result.message ?? this.name,
      evidence: {
        consecutiveDeclines: result.consecutiveDeclines,
        decliningIterations: result.decliningIterations,
        window: QUALITY_REGRESSION_WINDOW,
        scores: scored.map((entry) => ({ iteration: entry.iteration, score: qualityScore(entry) })),
      },
    };
  }
}

function toHistoryEntry(entry: {
  iteration: number;
  passed?: boolean;
  score?: number;
}): IterationHistoryEntry {
  const validationResult: IterationHistoryEntry['validationResult'] = {};
  if (entry.passed !== undefined) validationResult.passed = entry.passed;
  if (entry.score !== undefined) validationResult.score = entry.score;
  return { iteration: entry.iteration, validationResult };
}
