import type { IterationObservation } from './breakerTypes.js';
import { type SignalJudgement, StagnationSignal } from './StagnationSignal.js';

/**
 * Stalled when the loop detector stopped the iteration mid-run (the agent repeated a tool call,
 * retried the same error, oscillated); clear otherwise. Fed by `loopguard run --agent-stream`.
 * @example new StepLoopStoppedSignal(3).observe({ iteration: 1, stepLoopStopped: 'same_error' }).status; // 'stalled'
 */
export class StepLoopStoppedSignal extends StagnationSignal {
  /** @inheritdoc */
  readonly name = 'step_loop_stopped' as const;

  protected judge({ stepLoopStopped }: IterationObservation): SignalJudgement {
    if (stepLoopStopped === null || stepLoopStopped === undefined) {
      return { status: 'clear', detail: 'not stopped by the loop detector' };
    }
    return {
      status: 'stalled',
      key: 'stopped',
      detail: `stopped mid-run by the loop detector: ${stepLoopStopped}`,
    };
  }
}
