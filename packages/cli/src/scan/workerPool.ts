import { parentPort, Worker } from 'node:worker_threads';

/** How {@link mapInWorkers} runs its tasks. */
export interface WorkerPoolOptions<T, R> {
  /** The worker's script: a module that calls {@link serveTasks}. */
  script: URL;
  /** Given to every worker as its `workerData`. */
  workerData: unknown;
  /** How many workers run at once (at least 1). */
  size: number;
  /** The result of a task whose worker died on it (an uncaught error, out of memory): the pool goes on. */
  failed(item: T, error: Error): R;
}

interface Task<T> {
  index: number;
  item: T;
}

/**
 * Runs `task(item)` for each item in a pool of worker threads and hands each result to `onResult`
 * in the items' order, whatever order they finish in (a result waits for those before it). A worker
 * that dies takes only its task down: that task gives `options.failed(item, error)`, a new worker
 * takes the next ones.
 */
export async function mapInWorkers<T, R>(
  items: readonly T[],
  options: WorkerPoolOptions<T, R>,
  onResult: (result: R, index: number) => void,
): Promise<void> {
  const done = new Map<number, R>();
  let next = 0;
  let delivered = 0;
  const deliver = (index: number, result: R) => {
    done.set(index, result);
    while (done.has(delivered)) {
      const ready = done.get(delivered) as R;
      done.delete(delivered);
      onResult(ready, delivered++);
    }
  };
  await new Promise<void>((resolve) => {
    let running = 0;
    const start = () => {
      if (next >= items.length) {
        if (running === 0) resolve();
        return;
      }
      running++;
      const worker = new Worker(options.script, { workerData: options.workerData });
      let current: Task<T> | undefined;
      const give = () => {
        if (next >= items.length) {
          current = undefined;
          void worker.terminate();
          return;
        }
        current = { index: next, item: items[next++] as T };
        worker.postMessage(current);
      };
      worker.on('message', (message: { index: number; result: R }) => {
        deliver(message.index, message.result);
        give();
      });
      const lost = (error: Error) => {
        const task = current;
        current = undefined;
        if (task !== undefined) deliver(task.index, options.failed(task.item, error));
      };
      worker.on('error', lost);
      worker.on('exit', (code) => {
        lost(new Error(`worker exited with code ${code}`));
        running--;
        start();
      });
      give();
    };
    for (let i = 0; i < Math.max(1, Math.min(options.size, items.length)); i++) start();
    if (items.length === 0) resolve();
  });
}

/**
 * The worker's side of {@link mapInWorkers}: answers each task with `handle(item)`. An error the
 * handler throws ends the worker (the pool reports that task as failed).
 */
export function serveTasks<T, R>(handle: (item: T) => Promise<R>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveTasks runs in a worker thread');
  port.on('message', (task: Task<T>) => {
    handle(task.item).then(
      (result) => port.postMessage({ index: task.index, result }),
      (error: unknown) => {
        throw error;
      },
    );
  });
}
