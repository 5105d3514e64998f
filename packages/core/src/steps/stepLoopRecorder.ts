import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.js';
import type { ContextEntry } from '../model/contextEntry.js';
import type { StateMachine } from '../storage/ports.js';
import { stepLoopEntry } from './stepLoopEntry.js';
import type { StepVerdict } from './stepVerdict.js';

/** Where a step detector's nudges and stops go: the log, the detector's events, the state machine. */
export interface StepLoopSinks {
  /** The detector's logger. */
  log: Logger;
  /** The time of the entries written. */
  clock: Clock;
  /** The state machine port; nothing is recorded without it or without `taskId`. */
  stateMachine: StateMachine | undefined;
  /** The task the entries relate to; nothing is recorded without it. */
  taskId: string | undefined;
  /** The run the entries name, if any. */
  runId: string | undefined;
  /** The thresholds in force, written into each entry's metadata. */
  thresholds: Readonly<Record<string, number>>;
  /** Emits the detector's `stepLoopDetected` event. */
  detected: (verdict: StepVerdict) => void;
  /** Emits the detector's `stepLoopRecorded` event. */
  recorded: (entry: ContextEntry) => void;
}

/**
 * Reports a nudge or a stop: logs it, emits `stepLoopDetected`, and records it as a context entry
 * (`loop_nudge` / `loop_stop`) through the state machine, emitting `stepLoopRecorded`. Recording
 * must never break the agent run it watches: a failing state machine is logged and the verdict stands.
 */
export function reportStepLoop(sinks: StepLoopSinks, verdict: StepVerdict): void {
  sinks.log.info(
    { loopType: verdict.loopType, repeats: verdict.repeats, step: verdict.step, action: verdict.action },
    'Step loop detected',
  );
  sinks.detected(verdict);
  if (sinks.stateMachine === undefined || sinks.taskId === undefined) return;
  try {
    const entry = sinks.stateMachine.addContextEntry(
      stepLoopEntry(verdict, {
        taskId: sinks.taskId,
        runId: sinks.runId,
        detectedAt: sinks.clock.now(),
        thresholds: sinks.thresholds,
      }),
    );
    sinks.recorded(entry);
  } catch (error) {
    sinks.log.error({ err: error, step: verdict.step }, 'Recording a step loop failed');
  }
}
