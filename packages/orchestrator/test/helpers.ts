import {
  InMemoryStateMachine,
  type LoopDetectorOptions,
  ManualClock,
  type StateMachine,
  type TaskStatus,
} from '@loopguard/core';
import { pino } from 'pino';
import {
  type Decision,
  type Executor,
  type ExecutorReport,
  ManualTimer,
  OrchestratorLoop,
  type OrchestratorLoopOptions,
  type OrchestratorTask,
  type Policy,
} from '../src/index.js';

/** The seed's dashboard epoch, so that timestamps look like the seed's. */
export const T0 = 1_760_825_000_000;

/** A promise with its resolve and reject exposed. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A pino logger whose lines are captured as parsed JSON. */
export function captureLogger(level: pino.Level = 'info') {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines, messages: () => lines.map((l) => l.msg) };
}

/** A policy that returns the queued decisions in order, then `idle`. */
export function scriptedPolicy(decisions: Decision[]): Policy<number> & { calls: number } {
  const policy = {
    calls: 0,
    getSystemState: () => policy.calls,
    decide: (): Decision => {
      policy.calls++;
      return decisions.shift() ?? { type: 'idle', reason: 'script finished' };
    },
  };
  return policy;
}

/** A report with the given status and work. */
export function report(
  status: TaskStatus,
  completedWork: string[] = [],
  blockers: string[] = [],
): ExecutorReport {
  return { status, completedWork, blockers };
}

/** `{ type: 'run_task', task: { id } }`. */
export function runTask(id: string): Decision {
  return { type: 'run_task', task: { id } };
}

export interface Harness {
  clock: ManualClock;
  timer: ManualTimer;
  stateMachine: StateMachine;
  loop: OrchestratorLoop<unknown>;
  log: ReturnType<typeof captureLogger>;
  executorCalls: Array<{ task: OrchestratorTask; signal: AbortSignal; sessionId: string }>;
}

/**
 * An orchestrator loop over an in-memory state machine with a manual clock and timer. The
 * executor defaults to reporting `in_progress` with fresh work each call.
 */
export function makeLoop(
  options: Partial<OrchestratorLoopOptions<unknown>> & { detectorOptions?: LoopDetectorOptions } = {},
): Harness {
  const clock = new ManualClock(T0);
  const timer = new ManualTimer(clock);
  const stateMachine = options.stateMachine ?? new InMemoryStateMachine({ clock });
  const log = captureLogger('debug');
  const executorCalls: Harness['executorCalls'] = [];
  const inner: Executor =
    options.executor ??
    (async (task, { sessionId }) => report('in_progress', [`worked on ${task.id} in ${sessionId}`]));
  const executor: Executor = (task, context) => {
    executorCalls.push({ task, signal: context.signal, sessionId: context.sessionId });
    return inner(task, context);
  };
  const loop = new OrchestratorLoop<unknown>({
    policy: scriptedPolicy([]),
    clock,
    timer,
    logger: log.logger,
    ...options,
    stateMachine,
    executor,
  });
  return { clock, timer, stateMachine, loop, log, executorCalls };
}

/** Awaits microtasks (no timers, no sleeping) until `condition` holds; throws after `max` turns. */
export async function until(condition: () => boolean, max = 1_000): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (condition()) return;
    await Promise.resolve();
  }
  throw new Error('until: the condition never held');
}
