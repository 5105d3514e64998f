import { RunError } from '@loopguard/core';
import { validateExecutorReport } from './executorReport.js';
import type { Executor, ExecutorReport, OrchestratorTask } from './ports.js';
import type { Timer } from './timer.js';

/** What {@link runExecutor} needs besides the executor and the task. */
export interface RunExecutorOptions {
  /** Aborts the run (the loop's `stop()`); the executor sees it through its own signal. */
  signal: AbortSignal;
  /** Longest run, ms; after it the executor's signal is aborted and the run fails with code `timeout`. */
  timeout: number;
  /** Where the timeout is scheduled. */
  timer: Timer;
  /** Passed to the executor. */
  sessionId: string;
  /** Passed to the executor. */
  tickNumber: number;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs an executor under a timeout and an abort signal and validates its report.
 *
 * A run that outlives the timeout is not waited for: the executor's signal is aborted and the
 * returned promise rejects at once. A report that arrives after the abort of `signal` is still
 * accepted (the work was done); a rejection after it is reported as `aborted`.
 *
 * @throws RunError with code `run_error` (the executor threw or returned an invalid report),
 * `timeout` or `aborted`.
 * @example
 * const report = await runExecutor(executor, task, { signal, timeout: 600_000, timer: systemTimer, sessionId: 'session_1', tickNumber: 1 });
 */
export function runExecutor(
  executor: Executor,
  task: OrchestratorTask,
  options: RunExecutorOptions,
): Promise<ExecutorReport> {
  const { signal, timeout, timer } = options;
  if (signal.aborted) {
    return Promise.reject(new RunError('aborted', `Task ${task.id} was not run: the loop is stopping`));
  }
  const controller = new AbortController();
  const forwardAbort = (): void => {
    controller.abort(new RunError('aborted', `Task ${task.id} was aborted: the loop is stopping`));
  };
  signal.addEventListener('abort', forwardAbort, { once: true });

  return new Promise<ExecutorReport>((resolve, reject) => {
    let timedOut = false;
    const handle = timer.setTimeout(() => {
      timedOut = true;
      const error = new RunError('timeout', `Executor timed out after ${timeout} ms on task ${task.id}`);
      controller.abort(error);
      reject(error);
    }, timeout);
    const settle = (): void => {
      timer.clearTimeout(handle);
      signal.removeEventListener('abort', forwardAbort);
    };

    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(
        executor(task, {
          signal: controller.signal,
          sessionId: options.sessionId,
          tickNumber: options.tickNumber,
        }),
      );
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => {
        settle();
        if (timedOut) return;
        try {
          resolve(validateExecutorReport(value));
        } catch (error) {
          reject(error);
        }
      },
      (error: unknown) => {
        settle();
        if (timedOut) return;
        if (controller.signal.aborted) {
          reject(
            new RunError('aborted', `Executor stopped on abort for task ${task.id}: ${messageOf(error)}`, {
              cause: error,
            }),
          );
        } else {
          reject(
            new RunError('run_error', `Executor threw on task ${task.id}: ${messageOf(error)}`, {
              cause: error,
            }),
          );
        }
      },
    );
  });
}
