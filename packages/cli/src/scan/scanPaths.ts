import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { transcriptsUnder } from './findTranscripts.js';
import type { ScanPricing } from './scanCost.js';
import { scanFile } from './scanFile.js';
import type { ScannedSession, ScanProblem } from './scannedSession.js';

/** What scanning a set of paths found. */
export interface PathsScan {
  sessions: ScannedSession[];
  problems: ScanProblem[];
  /** Transcript files found (read or skipped). */
  files: number;
}

/** Hooks of {@link scanPaths}: progress and problems, as they happen. */
export interface ScanListener {
  /** A file was skipped or read in part. */
  onProblem?(problem: ScanProblem): void;
  /** `done` of `total` files are read. */
  onProgress?(done: number, total: number): void;
}

/**
 * Scans every transcript under `paths` (files or folders, which must exist), one file at a time:
 * each file's session runs through a fresh step detector with `options`, its replies priced with
 * `pricing` when given.
 */
export async function scanPaths(
  paths: readonly string[],
  options: StepLoopDetectorOptions,
  listener: ScanListener = {},
  pricing?: ScanPricing,
): Promise<PathsScan> {
  const problems: ScanProblem[] = [];
  const report = (problem: ScanProblem) => {
    problems.push(problem);
    listener.onProblem?.(problem);
  };
  const files: string[] = [];
  for (const path of paths) {
    for await (const file of transcriptsUnder(path, (folder, problem) => report({ file: folder, problem }))) {
      files.push(file);
    }
  }
  const sessions: ScannedSession[] = [];
  for (const [index, file] of files.entries()) {
    const scanned = await scanFile(file, options, pricing);
    if (scanned.session !== undefined) sessions.push(scanned.session);
    if (scanned.problem !== undefined) report(scanned.problem);
    listener.onProgress?.(index + 1, files.length);
  }
  return { sessions, problems, files: files.length };
}
