import { filesModifiedAtLeast, filesOf, thrashingMessage } from './checkThrashing.js';
import type { Guard, GuardIteration, GuardState, GuardVerdict } from './Guard.js';

/**
 * Blocks when a file was modified in `threshold` or more iterations (seed 000's thrashing). A
 * modification is a `file: /path` reference in a flag message or an entry of `filesModified`.
 * @example new ThrashingGuard(5) // message: 'Thrashing detected: 1 file(s) modified 5+ times without progress: /src/api.ts'
 */
export class ThrashingGuard implements Guard {
  readonly name = 'thrashing';

  /** @param threshold - iterations modifying the same file that block, integer ≥ 1. */
  constructor(private readonly threshold: number) {}

  /** Blocks when some file reaches the threshold. */
  check(state: GuardState): GuardVerdict | null {
    const files = state.history.map((item) => modifiedFiles(item.entry));
    const affectedFiles = filesModifiedAtLeast(files, this.threshold);
    if (affectedFiles.length === 0) return null;
    return {
      guard: this.name,
      message: thrashingMessage(affectedFiles, this.threshold),
      evidence: { affectedFiles, threshold: this.threshold },
    };
  }
}

function modifiedFiles(entry: GuardIteration): string[] {
  const flagged =
    entry.flags === undefined
      ? []
      : filesOf({ iteration: entry.iteration, validationResult: { flags: entry.flags } });
  return [...flagged, ...(entry.filesModified ?? [])];
}
