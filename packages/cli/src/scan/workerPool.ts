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
 * Tasks each worker holds at once: the one it works on and the next, so that it never waits for the
 * calling thread between two tasks (a round trip per file). Near the end (no more tasks left than
 * workers) each holds one, so that the last tasks go to whichever worker is free first.
 */
const IN_FLIGHT = 2;

/**
 * Runs `task(item)` for each item in a pool of worker threads and hands each result to `onResult`
 * in the items' order, whatever order they finish in (a result waits for those before it). Each
 * worker holds up to two tasks at once (it works on them in order). A worker that dies takes only the
 * task it was working on down: that task gives `options.failed(item, error)`; its other task goes
 * back to the queue, and a new worker takes the next ones.
 */
export async function mapInWorkers<T, R>(
  items: readonly T[],
  options: WorkerPoolOptions<T, R>,
  onResult: (result: R, index: number) => void,
): Promise<void> {
  const done = new Map<number, R>();
  // indices of the tasks a dead worker held but never began, taken before the ones never given
  const retry: number[] = [];
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
  const take = (): number | undefined => retry.shift() ?? (next < items.length ? next++ : undefined);
  const left = () => retry.length + items.length - next;
  await new Promise<void>((resolve) => {
    let running = 0;
    const start = () => {
      if (retry.length === 0 && next >= items.length) {
        if (running === 0) resolve();
        return;
      }
      running++;
      const worker = new Worker(options.script, { workerData: options.workerData });
      // the tasks given to this worker and not answered yet, oldest (the one it works on) first
      const held: number[] = [];
      const give = () => {
        while (held.length < (left() > options.size ? IN_FLIGHT : 1)) {
          const index = take();
          if (index === undefined) break;
          held.push(index);
          worker.postMessage({ index, item: items[index] as T } satisfies Task<T>);
        }
        if (held.length === 0) void worker.terminate();
      };
      worker.on('message', (message: { index: number; result: R }) => {
        held.splice(held.indexOf(message.index), 1);
        deliver(message.index, message.result);
        give();
      });
      const lost = (error: Error) => {
        const working = held.shift();
        retry.unshift(...held);
        held.length = 0;
        if (working !== undefined) deliver(working, options.failed(items[working] as T, error));
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
 * The worker's side of {@link mapInWorkers}: answers each task with `handle(item)`, one task at a
 * time, in the order they came. An error the handler throws ends the worker (the pool reports that
 * task as failed).
 */
export function serveTasks<T, R>(handle: (item: T) => Promise<R>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveTasks runs in a worker thread');
  let working: Promise<void> = Promise.resolve();
  port.on('message', (task: Task<T>) => {
    working = working.then(() =>
      handle(task.item).then(
        (result) => port.postMessage({ index: task.index, result }),
        (error: unknown) => {
          throw error;
        },
      ),
    );
  });
}
