import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { transcriptsUnder } from './findTranscripts.js';
import { type ScanPricingSource, scanPricing } from './scanCost.js';
import { scanFile } from './scanFile.js';
import type { FileScan, ScannedSession, ScanProblem } from './scannedSession.js';
import { mapInWorkers } from './workerPool.js';

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
 * The worker's script: the built bundle (one file to load, scripts/bundle-hook.mjs), else its
 * module; neither exists when loopguard runs from its TypeScript sources (the tests).
 */
const WORKER = [
  new URL('../bundle/scan-worker.mjs', import.meta.url),
  new URL('./scanWorker.js', import.meta.url),
].find((script) => existsSync(fileURLToPath(script)));

/** Worker threads at most (each holds its own copy of the detector's code, ~30 MB). */
const MAX_WORKERS = 8;

/**
 * How many worker threads read files: one per core (at most {@link MAX_WORKERS}), none (the calling
 * thread reads) with one core, fewer than 2 files, or no compiled worker script.
 */
function workersFor(files: number): number {
  const cores = availableParallelism();
  if (cores < 2 || files < 2 || WORKER === undefined) return 0;
  return Math.min(cores, files, MAX_WORKERS);
}

/**
 * Scans every transcript under `paths` (files or folders, which must exist; a file found twice is
 * read once): each file's session runs through a fresh step detector with `options`. Files are read
 * in parallel by worker threads, one per core; sessions and problems come in the files' order
 * whatever order they are read in. A file whose worker dies is one problem, and the scan goes on.
 * With `pricing`, each reply is priced from its model (each worker builds the same price book).
 */
export async function scanPaths(
  paths: readonly string[],
  options: StepLoopDetectorOptions,
  listener: ScanListener = {},
  pricing?: ScanPricingSource,
): Promise<PathsScan> {
  const problems: ScanProblem[] = [];
  const report = (problem: ScanProblem) => {
    problems.push(problem);
    listener.onProblem?.(problem);
  };
  const found = new Set<string>();
  for (const path of paths) {
    for await (const file of transcriptsUnder(path, (folder, problem) => report({ file: folder, problem }))) {
      found.add(file);
    }
  }
  const files = [...found];
  const sessions: ScannedSession[] = [];
  const take = (scanned: FileScan, index: number) => {
    if (scanned.session !== undefined) sessions.push(scanned.session);
    if (scanned.problem !== undefined) report(scanned.problem);
    listener.onProgress?.(index + 1, files.length);
  };
  const failed = (file: string, error: Error): FileScan => ({
    problem: { file, problem: `could not be read (${error.message})` },
  });
  const workers = workersFor(files.length);
  if (workers === 0) {
    const priced = pricing === undefined ? undefined : await scanPricing(pricing);
    for (const [index, file] of files.entries()) {
      take(await scanFile(file, options, priced).catch((error: Error) => failed(file, error)), index);
    }
  } else {
    const workerData = { options, pricing };
    const script = WORKER as URL;
    await mapInWorkers<string, FileScan>(files, { script, workerData, size: workers, failed }, take);
  }
  return { sessions, problems, files: files.length };
}
