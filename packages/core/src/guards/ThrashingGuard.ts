import type { Guard, GuardIteration, GuardState, GuardVerdict } from './Guard.js';
import type { ValidationFlag } from './iterationHistory.js';

/** Iterations modifying one file that count as thrashing by default (seed 000). */
export const DEFAULT_THRASHING_THRESHOLD = 5;

/** `file: /path` in a flag message, any case; the path ends at whitespace, a quote, a comma or a bracket. */
const FILE_REFERENCE = /file:\s*([^\s,;'"`()[\]{}<>]+)/gi;

/**
 * Files referenced as `file: /path` in flag messages, without duplicates.
 * @example filesOf([{ message: 'Error in FILE: /a.ts, file: /b.ts' }]); // ['/a.ts', '/b.ts']
 */
export function filesOf(flags: readonly ValidationFlag[]): string[] {
  const files = new Set<string>();
  for (const flag of flags) {
    for (const match of flag.message.matchAll(FILE_REFERENCE)) {
      const path = match[1]?.replace(/[.:]+$/, '');
      if (path) files.add(path);
    }
  }
  return [...files];
}

/**
 * The files that appear in `threshold` or more iterations, in order of first appearance; a file
 * named twice in one iteration counts once for it.
 * @example filesModifiedAtLeast([['a'], ['a', 'a'], ['b']], 2); // ['a']
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

/** The files an iteration modified: its flags' `file:` references and its `filesModified`. */
function modifiedFiles(entry: GuardIteration): string[] {
  return [...filesOf(entry.flags ?? []), ...(entry.filesModified ?? [])];
}

/**
 * Blocks when a file was modified in `threshold` or more iterations: the agent keeps rewriting it
 * without progress.
 * @example new ThrashingGuard(5) // message: 'Thrashing detected: 1 file(s) modified 5+ times without progress: /src/api.ts'
 */
export class ThrashingGuard implements Guard {
  readonly name = 'thrashing';

  /** @param threshold - iterations modifying one file that count as thrashing, integer ≥ 1. */
  constructor(private readonly threshold: number = DEFAULT_THRASHING_THRESHOLD) {}

  /** The files modified `threshold`+ times, and the verdict. */
  assess(state: GuardState): { affectedFiles: string[]; verdict: GuardVerdict | null } {
    const affectedFiles = filesModifiedAtLeast(
      state.history.map((item) => modifiedFiles(item.entry)),
      this.threshold,
    );
    if (affectedFiles.length === 0) return { affectedFiles, verdict: null };
    return {
      affectedFiles,
      verdict: {
        guard: this.name,
        message: `Thrashing detected: ${affectedFiles.length} file(s) modified ${this.threshold}+ times without progress: ${affectedFiles.join(', ')}`,
        evidence: { affectedFiles, threshold: this.threshold },
      },
    };
  }

  /** Blocks on thrashing. */
  check(state: GuardState): GuardVerdict | null {
    return this.assess(state).verdict;
  }
}
