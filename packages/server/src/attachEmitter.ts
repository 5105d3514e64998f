import type { ContextEntry } from '@loopguard/core';
import { recoveryViewOf, startsLoop } from '@loopguard/core/internal';
import type { BreakerView, LiveFeed } from './LiveFeed.js';

/**
 * Anything with loopguard's events: a `LoopDetector`, an `OrchestratorLoop`, `IterationSessions`,
 * a stagnation breaker, a `StepLoopDetector`. Only the events it has are used.
 * @example attachEmitter(feed, loop);
 */
export interface LiveEmitter {
  /** Adds `listener` for `event`. */
  // biome-ignore lint/suspicious/noExplicitAny: accepts every typed emitter (their event maps differ)
  on(event: any, listener: (...args: any[]) => void): unknown;
  /** Removes `listener` for `event`. */
  // biome-ignore lint/suspicious/noExplicitAny: as for on
  off(event: any, listener: (...args: any[]) => void): unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: listeners of events with different argument lists
type Listener = (...args: any[]) => void;

function breakerViewOf(args: unknown[]): BreakerView | undefined {
  for (const arg of args) {
    if (typeof arg === 'string' && ['CLOSED', 'HALF_OPEN', 'OPEN'].includes(arg)) return { state: arg };
    if (arg !== null && typeof arg === 'object') {
      const record = arg as Record<string, unknown>;
      const state = record.to ?? record.state;
      if (typeof state === 'string') return { ...record, state };
    }
  }
  return undefined;
}

/**
 * Forwards an in-process emitter's events (`attemptRecorded`, `loopDetected`, `recoveryApplied`,
 * `guardTriggered`, `breakerStateChanged`, `tickCompleted`, `tickFailed`, and a step detector's
 * `stepLoopRecorded` as a recovery, a loop when it does not follow a nudge) to `feed`. Returns a
 * function that detaches.
 * @example
 * const detach = attachEmitter(feed, detector);
 */
export function attachEmitter(feed: LiveFeed, emitter: LiveEmitter): () => void {
  const listeners: Record<string, Listener> = {
    attemptRecorded: () => feed.emit('attemptsRecorded', { count: 1 }),
    loopDetected: ((result: { taskId: string; loopType: string | null; attemptCount: number }) => {
      if (result.loopType !== null)
        feed.emit('loopDetected', { ...pick(result), loopType: result.loopType, at: Date.now() });
    }) as Listener,
    recoveryApplied: ((outcome: { entry: ContextEntry }) =>
      feed.emit('recoveryApplied', recoveryViewOf(outcome.entry))) as Listener,
    stepLoopRecorded: ((entry: ContextEntry) => {
      const view = recoveryViewOf(entry);
      const { repeats } = view.metadata;
      if (view.loopType !== null && view.taskId !== null && startsLoop(view)) {
        const attemptCount = typeof repeats === 'number' ? repeats : 0;
        feed.emit('loopDetected', {
          taskId: view.taskId,
          loopType: view.loopType,
          attemptCount,
          at: view.timestamp,
        });
      }
      feed.emit('recoveryApplied', view);
    }) as Listener,
    guardTriggered: ((trigger: { taskId: string; guard: string; message: string; at: number }) =>
      feed.emit('guardTriggered', {
        taskId: trigger.taskId,
        guard: trigger.guard,
        message: trigger.message,
        at: trigger.at,
      })) as Listener,
    breakerStateChanged: ((...args: unknown[]) => {
      const view = breakerViewOf(args);
      if (view) feed.emit('breakerStateChanged', view);
    }) as Listener,
    tickCompleted: ((result: { duration: number }) =>
      feed.emit('tickFinished', { durationMs: result.duration, success: true })) as Listener,
    tickFailed: ((result: { duration: number }) =>
      feed.emit('tickFinished', { durationMs: result.duration, success: false })) as Listener,
  };
  for (const [event, listener] of Object.entries(listeners)) emitter.on(event, listener);
  return () => {
    for (const [event, listener] of Object.entries(listeners)) emitter.off(event, listener);
  };
}

function pick(result: { taskId: string; attemptCount: number }): { taskId: string; attemptCount: number } {
  return { taskId: result.taskId, attemptCount: result.attemptCount };
}
