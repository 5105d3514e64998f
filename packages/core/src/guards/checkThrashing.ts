import { assertInteger, assertIterationHistory, type IterationHistoryEntry } from './iterationHistory.js';
import type { ThrashingResult } from './safetyResults.js';

/** Seed 000's default number of modifications of one file that counts as thrashing. */
export const DEFAULT_THRASHING_THRESHOLD = 5;

/** `file: /path` in a flag message, any case; the path ends at whitespace, a quote, a comma or a bracket. */
const FILE_REFERENCE = /file:\s*([^\s,;'"`()[\]{}<>]+)/gi;

/**
 * Files referenced as `file: /path` in the flag messages of one iteration, without duplicates.
 * @example filesOf({ iteration: 1, validationResult: { flags: [{ message: 'Error in FILE: /a.ts, file: /b.ts' }] } });
 * // ['/a.ts', '/b.ts']
 */
export function filesOf(entry: IterationHistoryEntry): string[] {
  const files = new Set<string>();
  for (const flag of entry.validationResult.flags ?? []) {
    for (const match of flag.message.matchAll(FILE_REFERENCE)) {
      const path = match[1]?.replace(/[.:]+$/, '');
      if (path) files.add(path);
    }
  }
  return [...files];
}

/**
 * Seed 000's thrashing guard: a file referenced (`file: /path`, case-insensitive, several per
 * message) in `threshold` or more iterations is being modified over and over without progress.
 * A file named twice in one iteration counts once for that iteration.
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
  const affectedFiles = filesModifiedAtLeast(iterationHistory.map(filesOf), threshold);
  if (affectedFiles.length === 0) return { thrashing: false, affectedFiles };
  return { thrashing: true, affectedFiles, message: thrashingMessage(affectedFiles, threshold) };
}

/**
 * The files that appear in at least `threshold` of the per-iteration file lists, in order of first appearance.
 * @example filesModifiedAtLeast([['/a.ts'], ['/a.ts', '/b.ts']], 2); // ['/a.ts']
 */
export function filesModifiedAtLeast(
  filesPerIteration: ReadonlyArray<readonly string[]>,
  threshold: number,
): string[] {
  const counts = new Map<string, number>();
  for (const files of filesPerIteration) {
    for (const file of new Set(files)) counts.set(file, (counts.get(file) ?? 0) + 1);
  }
  return [...counts].filter(([, count]) => count >= threshold).map(([file]) => file);
}

/** Seed 000's thrashing message. */
export function thrashingMessage(affectedFiles: readonly string[], threshold: number): string {
  return `Thrashing detected: ${affectedFiles.length} file(s) modified ${threshold}+ times without progress: ${affectedFiles.join(', ')}`;
}
