import type { Guard, GuardIteration, GuardState, GuardVerdict } from './Guard.js';

/** Declining iterations in a row that make a regression (seed 000's window). */
export const QUALITY_REGRESSION_WINDOW = 3;

/**
 * The quality of one iteration: `score` when given, else 1 for a pass and 0 for a failure; `null`
 * when the iteration says neither (it is skipped).
 * @example qualityScore({ iteration: 1, passed: true }); // 1
 */
export function qualityScore(entry: Pick<GuardIteration, 'passed' | 'score'>): number | null {
  if (entry.score !== undefined) return entry.score;
  if (entry.passed !== undefined) return entry.passed ? 1 : 0;
  return null;
}

/**
 * Declining iterations in a row at the end of `scores`. An iteration declines when its score is
 * below the best score seen before it and not higher than the previous score: falling, or staying
 * down after a fall. The first score never declines.
 * @example trailingDeclines([1, 0, 0, 0]); // 3
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

/** What {@link QualityRegressionGuard.assess} finds, blocking or not. */
export interface QualityAssessment {
  /** Declining iterations in a row at the end of the run. */
  decliningIterations: number;
  /** Steps between those iterations (`decliningIterations - 1`, at least 0): the seed's "declined N consecutive times". */
  consecutiveDeclines: number;
  /** The verdict when the guard blocks, else `null`. */
  verdict: GuardVerdict | null;
}

/**
 * Blocks when the last {@link QUALITY_REGRESSION_WINDOW} (3) scored iterations all declined (see
 * {@link trailingDeclines}); infrastructure errors are skipped. With pass/fail only, pass, fail,
 * fail, fail is a regression.
 * @example new QualityRegressionGuard() // message: 'Quality regression detected: Validation scores declined 2 consecutive times. Consider changing approach.'
 */
export class QualityRegressionGuard implements Guard {
  readonly name = 'quality_regression';

  /** The facts and the verdict. */
  assess(state: GuardState): QualityAssessment {
    const scored = state.history
      .filter((item) => !item.infrastructure)
      .map((item) => ({ iteration: item.entry.iteration, score: qualityScore(item.entry) }))
      .filter((item): item is { iteration: number; score: number } => item.score !== null);
    const decliningIterations = trailingDeclines(scored.map((item) => item.score));
    const consecutiveDeclines = Math.max(0, decliningIterations - 1);
    if (decliningIterations < QUALITY_REGRESSION_WINDOW) {
      return { decliningIterations, consecutiveDeclines, verdict: null };
    }
    return {
      decliningIterations,
      consecutiveDeclines,
      verdict: {
        guard: this.name,
        message: `Quality regression detected: Validation scores declined ${consecutiveDeclines} consecutive times. Consider changing approach.`,
        evidence: {
          consecutiveDeclines,
          decliningIterations,
          window: QUALITY_REGRESSION_WINDOW,
          scores: scored,
        },
      },
    };
  }

  /** Blocks on a regression. */
  check(state: GuardState): GuardVerdict | null {
    return this.assess(state).verdict;
  }
}
