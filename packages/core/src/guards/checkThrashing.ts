import { guardHistoryOf, guardStateOf } from './guardState.js';
import { assertInteger, assertIterationHistory, type IterationHistoryEntry } from './iterationHistory.js';
import type { ThrashingResult } from './safetyResults.js';
import { DEFAULT_THRASHING_THRESHOLD, ThrashingGuard } from './ThrashingGuard.js';

/**
 * Seed 000's thrashing guard, decided by {@link ThrashingGuard}: a file referenced (`file: /path`,
 * case-insensitive, several per message) in `threshold` or more iterations is being modified over
 * and over without progress. A file named twice in one iteration counts once for that iteration.
 *
 * @param iterationHistory - finished iterations, oldest first.
 * @param threshold - iterations naming the same file, integer ≥ 1. @default 5
 * @throws InvalidInputError when the history or the threshold is malformed.
 * @example
 * const history = [1, 2, 3, 4, 5].map((i) => ({ iteration: i, validationResult: { flags: [{ message: 'Error in file: /src/api.ts' }] } }));
 * checkThrashing(history, 5);
 * // { thrashing: true, affectedFiles: ['/src/api.ts'],
 * //   message: 'Thrashing detected: 1 file(s) modified 5+ times without progress: /src/api.ts' }
 */
export function checkThrashing(
  iterationHistory: readonly IterationHistoryEntry[],
  threshold: number = DEFAULT_THRASHING_THRESHOLD,
): ThrashingResult {
  assertIterationHistory(iterationHistory, 'iterationHistory');
  assertInteger(threshold, 'threshold', 1);
  const state = guardStateOf({
    iteration: iterationHistory.length + 1,
    startedAt: null,
    now: 0,
    history: guardHistoryOf(iterationHistory),
  });
  const { affectedFiles, verdict } = new ThrashingGuard(threshold).assess(state);
  return verdict === null
    ? { thrashing: false, affectedFiles }
    : { thrashing: true, affectedFiles, message: verdict.message };
}
