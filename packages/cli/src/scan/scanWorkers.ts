import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WorkerPool } from './workerPool.js';

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
 * Starts `loopguard scan`'s worker threads, one per core but the calling thread's (at most
 * {@link MAX_WORKERS}), before the files are known: each loads the step detector while the calling
 * thread reads the options and finds the files; then the calling thread reads files beside them
 * (it has loaded the same code: a worker in its place would load it once more, ≈ 130 ms of CPU).
 * None (`undefined`: the calling thread reads) with one core or no compiled worker script. This
 * module loads nothing else, so that the workers start first.
 */
export function startScanWorkers(): WorkerPool | undefined {
  const cores = availableParallelism();
  if (cores < 2 || WORKER === undefined) return undefined;
  return WorkerPool.start(WORKER, Math.min(cores - 1, MAX_WORKERS));
}
