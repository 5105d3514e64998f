import { parentPort, Worker } from 'node:worker_threads';

/** What {@link WorkerPool.map} runs: its tasks, and what every worker is told first. */
export interface PoolWork<T, R> {
  /** Sent to each worker before its first task (the handler's options). */
  setup: unknown;
  /** The result of a task whose worker died on it (an uncaught error, out of memory): the pool goes on. */
  failed(item: T, error: Error): R;
}

/** A message to a worker: its setup, then its tasks. */
type ToWorker<T> = { setup: unknown } | { index: number; item: T };

/**
 * Tasks each worker holds at once: the one it works on and the next, so that it never waits for the
 * calling thread between two tasks (a round trip per file). Near the end (no more tasks left than
 * workers) each holds one, so that the last tasks go to whichever worker is free first.
 */
const IN_FLIGHT = 2;

/**
 * Worker threads started before their work is known: each loads its script while the calling
 * thread prepares the work (reads its options, finds the files), then {@link map} runs the tasks.
 * @example
 * const pool = WorkerPool.start(new URL('./worker.js', import.meta.url), 2);
 * try { await pool.map(files, { setup, failed }, onResult); } finally { pool.close(); }
 */
export class WorkerPool {
  private readonly idle: Worker[] = [];
  // workers that ended before they were given work (their script failed to load)
  private readonly gone = new Set<Worker>();
  private closed = false;

  private constructor(
    private readonly script: URL,
    readonly size: number,
  ) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(script);
      // until `map` listens: an error here must not end the calling thread
      const early = () => this.gone.add(worker);
      worker.once('error', early).once('exit', early);
      this.idle.push(worker);
    }
  }

  /**
   * Starts `size` workers of `script`, a module that calls {@link serveTasks}.
   * @param size - workers at once (at least 1).
   */
  static start(script: URL, size: number): WorkerPool {
    return new WorkerPool(script, Math.max(1, size));
  }

  /**
   * Runs each item as a task on the workers and hands each result to `onResult` in the items'
   * order, whatever order they finish in (a result waits for those before it). Each worker holds
   * up to two tasks at once (it works on them in order). A worker that dies takes only the task it
   * was working on down: that task gives `work.failed(item, error)`; its other task goes back to
   * the queue, and a new worker takes the next ones. The workers end with the work; a pool maps once.
   */
  async map<T, R>(
    items: readonly T[],
    work: PoolWork<T, R>,
    onResult: (result: R, index: number) => void,
  ): Promise<void> {
    if (this.closed) throw new Error('the worker pool was closed');
    const spare = this.idle.splice(0, this.idle.length);
    this.closed = true;
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
      const start = (started?: Worker) => {
        if (left() === 0) {
          void started?.terminate();
          if (running === 0) resolve();
          return;
        }
        running++;
        const worker = started ?? new Worker(this.script);
        worker.postMessage({ setup: work.setup } satisfies ToWorker<T>);
        // the tasks given to this worker and not answered yet, oldest (the one it works on) first
        const held: number[] = [];
        const give = () => {
          while (held.length < (left() > this.size ? IN_FLIGHT : 1)) {
            const index = take();
            if (index === undefined) break;
            held.push(index);
            worker.postMessage({ index, item: items[index] as T } satisfies ToWorker<T>);
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
          if (working !== undefined) deliver(working, work.failed(items[working] as T, error));
        };
        worker.on('error', lost);
        worker.on('exit', (code) => {
          lost(new Error(`worker exited with code ${code}`));
          running--;
          start();
        });
        give();
      };
      for (const worker of spare) start(this.gone.has(worker) ? undefined : worker);
      if (items.length === 0) resolve();
    });
  }

  /** Ends the workers that were started and never given work (nothing to map, or an error before). */
  close(): void {
    this.closed = true;
    for (const worker of this.idle.splice(0, this.idle.length)) void worker.terminate();
  }
}

/**
 * The worker's side of {@link WorkerPool}: `prepare(setup)` once, with the setup sent before the
 * first task, then each task answered with the handler it gave, one at a time, in the order they
 * came. An error the handler throws ends the worker (the pool reports that task as failed).
 */
export function serveTasks<S, T, R>(prepare: (setup: S) => Promise<(item: T) => Promise<R>>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveTasks runs in a worker thread');
  let handle: Promise<(item: T) => Promise<R>> | undefined;
  let working: Promise<void> = Promise.resolve();
  port.on('message', (message: ToWorker<T>) => {
    if ('setup' in message) {
      handle = prepare(message.setup as S);
      return;
    }
    const { index, item } = message;
    const ready = handle ?? Promise.reject(new Error('a task came before its setup'));
    working = working.then(() =>
      ready
        .then((task) => task(item))
        .then(
          (result) => port.postMessage({ index, result }),
          (error: unknown) => {
            throw error;
          },
        ),
    );
  });
}
