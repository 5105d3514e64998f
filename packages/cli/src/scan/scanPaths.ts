import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { transcriptsUnder } from './findTranscripts.js';
import { oncePerSession } from './oncePerSession.js';
import { SessionScan } from './SessionScan.js';
import type { Looked, ScanCache } from './scanCache.js';
import { type ScanPricingSource, scanPricing } from './scanCost.js';
import { scanFile } from './scanFile.js';
import type { FileScan, ScannedSession, ScanProblem } from './scannedSession.js';
import type { ScanSetup } from './scanWorker.js';
import type { startScanWorkers } from './scanWorkers.js';
import type { WorkerPool } from './workerPool.js';

/** What scanning a set of paths found. */
export interface PathsScan {
  /** The sessions read, one per transcript. */
  sessions: ScannedSession[];
  /** What could not be read, with why (the scan goes on without it). */
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
 * Scans every transcript under `paths` (files or folders, which must exist; a file found twice is
 * read once): each file's session runs through a fresh step detector with `options`. Files are read
 * in parallel by worker threads and the calling thread, one per core; sessions and problems come in
 * the files' order whatever order they are read in. A file whose worker dies is one problem, and
 * the scan goes on.
 * With `pricing`, each reply is priced from its model (each worker builds the same price book).
 * Fewer than two files are read by the calling thread.
 * @param workers - the worker threads that read the files, started ahead by the caller
 *   ({@link startScanWorkers}), or what starts them, called once the files to read are known and only
 *   when there are two or more and at least {@link WORKERS_FROM_BYTES} to read; they end with the
 *   scan. None: the calling thread reads every file.
 * @param cache - what the last scan with the same key found: a file it knows unchanged is not read,
 *   and it is saved with what this scan found. None: every file is read.
 */
export async function scanPaths(
  paths: readonly string[],
  options: StepLoopDetectorOptions,
  listener: ScanListener = {},
  pricing?: ScanPricingSource,
  workers?: WorkerPool | (() => WorkerPool | undefined),
  cache?: ScanCache,
): Promise<PathsScan> {
  let started = typeof workers === 'function' ? undefined : workers;
  // workers not started yet start only for enough bytes; those started ahead read whatever there is
  const start = (worth: boolean) => {
    if (typeof workers !== 'function') return started;
    if (worth) started = workers();
    return worth ? started : undefined;
  };
  try {
    const scanned = await scanFiles(paths, options, listener, pricing, start, cache);
    cache?.save(paths);
    return scanned;
  } finally {
    started?.close();
  }
}

/**
 * Bytes to read below which the calling thread reads alone when the workers are not started yet
 * (a cache knew the other files): a worker takes ≈ 0.1-0.15 s to start and load before it reads, and
 * the calling thread reads ≈ 16 MiB in that time and its own.
 */
const WORKERS_FROM_BYTES = 16 * 1024 * 1024;

/** Whether the files to read (`indexes` of `looked`) are worth starting workers for; unknown sizes are. */
function worthWorkers(looked: ReadonlyArray<Looked | undefined>, indexes: readonly number[]): boolean {
  let bytes = 0;
  for (const i of indexes) bytes += looked[i]?.size ?? WORKERS_FROM_BYTES;
  return bytes >= WORKERS_FROM_BYTES;
}

async function scanFiles(
  paths: readonly string[],
  options: StepLoopDetectorOptions,
  listener: ScanListener,
  pricing: ScanPricingSource | undefined,
  startWorkers: (worth: boolean) => WorkerPool | undefined,
  cache: ScanCache | undefined,
): Promise<PathsScan> {
  // the price book loads while the files are found (the pricing library: ≈ 35 ms); with a cache,
  // once a file is known to be read (a warm scan may read none)
  let pricedHere = pricing === undefined || cache?.enabled === true ? undefined : scanPricing(pricing);
  pricedHere?.catch(() => undefined); // its failure shows where it is awaited
  const problems: ScanProblem[] = [];
  const report = (problem: ScanProblem) => {
    problems.push(problem);
    listener.onProblem?.(problem);
  };
  const found = new Set<string>();
  for (const path of paths) {
    for (const file of transcriptsUnder(path, (folder, problem) => report({ file: folder, problem }))) {
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
  // what the cache knows is taken in its place among the files read (the files' order is kept)
  const looked = files.map((file) => cache?.look(file));
  const known = files.map((file, i) => {
    const identity = looked[i];
    return identity === undefined ? undefined : cache?.result(file, identity);
  });
  const toRead = files.flatMap((file, i) => (known[i] === undefined ? [file] : []));
  const indexes = files.flatMap((_, i) => (known[i] === undefined ? [i] : []));
  if (pricing !== undefined && pricedHere === undefined && toRead.length > 0) {
    pricedHere = scanPricing(pricing);
    pricedHere.catch(() => undefined);
  }
  let next = 0;
  const takeKnown = (upTo: number) => {
    for (; next < upTo; next++) take(known[next] as FileScan, next);
  };
  const takeRead = (scanned: FileScan, j: number) => {
    const index = indexes[j] as number;
    takeKnown(index);
    cache?.remember(files[index] as string, looked[index], scanned);
    take(scanned, index);
    next = index + 1;
  };
  const failed = (file: string, error: Error): FileScan => ({
    problem: { file, problem: `could not be read (${error.message})` },
    readFailed: true,
  });
  // validated once for every file this thread reads (the workers validate theirs once each)
  const detector = SessionScan.detectorOptions(options);
  const workers = toRead.length < 2 ? undefined : startWorkers(worthWorkers(looked, indexes));
  if (workers === undefined) {
    const priced = await pricedHere;
    for (const [j, file] of toRead.entries()) {
      takeRead(await scanFile(file, detector, priced).catch((error: Error) => failed(file, error)), j);
    }
  } else {
    const setup: ScanSetup = pricing === undefined ? { options } : { options, pricing };
    // the workers are told first (they wait for their setup); the price book is awaited here after
    const here = async (file: string) => scanFile(file, detector, await pricedHere);
    await workers.map<string, FileScan>(toRead, { setup, failed, here }, takeRead);
  }
  takeKnown(files.length);
  return { sessions: oncePerSession(sessions), problems, files: files.length };
}
