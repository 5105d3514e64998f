import { parentPort, Worker } from 'node:worker_threads';

/** What {@link WorkerPool.map} runs: its tasks, and what every worker is told first. */
export interface PoolWork<T, R> {
  /** Sent to each worker with the items, before it takes its first task (the handler's options). */
  setup: unknown;
  /** The result of a task whose worker died on it (an uncaught error, out of memory): the pool goes on. */
  failed(item: T, error: Error): R;
  /**
   * The calling thread's own handler, when it takes tasks too: with it, a machine's last core reads
   * instead of a worker that would load the same code once more. It takes its tasks from the same
   * counter as the workers, so no worker waits for it. A task it fails on (a rejection) gives
   * `failed` too. Absent: only the workers.
   */
  here?(item: T): Promise<R>;
}

/**
 * What a worker is told, once: its setup, the items, and the shared counters: `next` (the index of
 * the next item, `Int32Array` cell 0) and `working` (the item each worker works on, cell `slot`).
 */
interface ToWorker<T> {
  setup: unknown;
  items: readonly T[];
  next: SharedArrayBuffer;
  working: SharedArrayBuffer;
  slot: number;
}

/** A worker's answer: one item's result, or that it took its last (`done`: no item is left). */
type FromWorker<R> = { index: number; result: R } | { done: true };

/** The index of the next item, taken by whoever reads (each index once, whichever thread takes it). */
function takeNext(next: Int32Array): number {
  return Atomics.add(next, 0, 1);
}

/**
 * Worker threads started before their work is known: each loads its script while the calling
 * thread prepares the work (reads its options, finds the files), then {@link map} runs the tasks.
 * Each reader (a worker, and the calling thread with `here`) takes its next task itself from a
 * counter they share (`Atomics.add`), so that none waits for another to hand it work, a busy
 * calling thread included.
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
   * Runs each item as a task on the workers (and on the calling thread with `work.here`) and hands
   * each result to `onResult` in the items' order, whatever order they finish in (a result waits
   * for those before it). A worker that dies takes only the task it was working on down: that task
   * gives `work.failed(item, error)`, and a new worker takes the next ones. Every item gives one
   * result, and every worker has ended when this resolves; a pool maps once.
   */
  async map<T, R>(
    items: readonly T[],
    work: PoolWork<T, R>,
    onResult: (result: R, index: number) => void,
  ): Promise<void> {
    if (this.closed) throw new Error('the worker pool was closed');
    const spare = this.idle.splice(0, this.idle.length);
    this.closed = true;
    const next = new SharedArrayBuffer(4);
    const counter = new Int32Array(next);
    const working = new SharedArrayBuffer(4 * spare.length);
    const workingOf = new Int32Array(working).fill(-1);
    const done = new Map<number, R>();
    const answered = new Set<number>();
    let delivered = 0;
    const deliver = (index: number, result: R) => {
      if (answered.has(index)) return;
      answered.add(index);
      done.set(index, result);
      while (done.has(delivered)) {
        const ready = done.get(delivered) as R;
        done.delete(delivered);
        onResult(ready, delivered++);
      }
    };
    const left = () => Atomics.load(counter, 0) < items.length;
    let lastError: Error | undefined;
    await new Promise<void>((resolve) => {
      let running = 0;
      let hereBusy = work.here !== undefined;
      const settle = () => {
        if (running > 0 || hereBusy) return;
        // a task taken by a worker that died before it noted it as its own: never lost
        for (let index = delivered; index < items.length; index++) {
          if (!answered.has(index)) {
            const error = lastError ?? new Error('its worker ended');
            deliver(index, work.failed(items[index] as T, error));
          }
        }
        resolve();
      };
      const start = (slot: number, started?: Worker) => {
        if (!left()) {
          void started?.terminate();
          return;
        }
        running++;
        const worker = started ?? new Worker(this.script);
        Atomics.store(workingOf, slot, -1);
        worker.postMessage({ setup: work.setup, items, next, working, slot } satisfies ToWorker<T>);
        let finished = false;
        let error: Error | undefined;
        worker.on('message', (message: FromWorker<R>) => {
          if ('done' in message) {
            finished = true;
            void worker.terminate();
          } else deliver(message.index, message.result);
        });
        worker.on('error', (thrown) => {
          error = thrown;
        });
        // 'exit' comes after every message the worker sent (node drains its port first)
        worker.on('exit', (code) => {
          running--;
          if (!finished) {
            lastError = error ?? new Error(`worker exited with code ${code}`);
            // the task it worked on; none yet (its script or its setup failed): one fails in its
            // stead, so that a worker that can never start is not started again and again
            const current = Atomics.load(workingOf, slot);
            const lost = current >= 0 ? current : takeNext(counter);
            if (lost < items.length && !answered.has(lost))
              deliver(lost, work.failed(items[lost] as T, lastError));
          }
          start(slot);
          settle();
        });
      };
      for (const [slot, worker] of spare.entries()) start(slot, this.gone.has(worker) ? undefined : worker);
      if (work.here !== undefined) {
        const here = work.here;
        void (async () => {
          for (let index = takeNext(counter); index < items.length; index = takeNext(counter)) {
            const item = items[index] as T;
            deliver(index, await here(item).catch((error: Error) => work.failed(item, error)));
            // the workers' answers that came meanwhile: the progress, in order
            await new Promise((turned) => setImmediate(turned));
          }
          hereBusy = false;
          settle();
        })();
      }
      settle();
    });
  }

  /** Ends the workers that were started and never given work (nothing to map, or an error before). */
  close(): void {
    this.closed = true;
    for (const worker of this.idle.splice(0, this.idle.length)) void worker.terminate();
  }
}

/**
 * The worker's side of {@link WorkerPool}: `prepare(setup)` once, then the items taken one at a time
 * from the counter the readers share, each answered with the handler it gave; the worker ends when
 * none is left. An error the handler throws ends the worker (the pool reports that task as failed).
 */
export function serveTasks<S, T, R>(prepare: (setup: S) => Promise<(item: T) => Promise<R>>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveTasks runs in a worker thread');
  port.once('message', async ({ setup, items, next, working, slot }: ToWorker<T>) => {
    const counter = new Int32Array(next);
    const workingOf = new Int32Array(working);
    const take = () => {
      const index = takeNext(counter);
      if (index < items.length) Atomics.store(workingOf, slot, index);
      return index;
    };
    // the first task is taken before the setup is prepared: a setup that fails costs that task
    let index = take();
    if (index < items.length) {
      const task = await prepare(setup as S);
      for (; index < items.length; index = take()) {
        const result = await task(items[index] as T);
        port.postMessage({ index, result } satisfies FromWorker<R>);
      }
    }
    port.postMessage({ done: true } satisfies FromWorker<R>);
  });
}
