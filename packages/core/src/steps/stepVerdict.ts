import type { ContextEntry } from '../model/contextEntry.js';
import type { StepLoopType } from './StepRule.js';
import type { StepEvidence } from './stepHistory.js';

/** What {@link StepLoopDetector.observe} returns for one step. */
export interface StepVerdict {
  /**
   * `continue`: go on. `nudge`: a loop was found; hand `message` to the agent. `stop`: the loop went
   * on after the nudge with nothing fresh; end the run.
   */
  action: 'continue' | 'nudge' | 'stop';
  /** The loop; also set on `continue` while a nudged loop goes on without reaching the stop. `null` otherwise. */
  loopType: StepLoopType | null;
  /** How many times the loop's unit repeated; 0 when there is no loop. */
  repeats: number;
  /** The steps that show the loop, oldest first (at most `maxEvidence`); empty when there is no loop. */
  evidence: StepEvidence[];
  /** For `nudge` and `stop`: what repeats, since when, the evidence, what to try instead. Else `null`. */
  message: string | null;
  /** Step index where the loop began; `null` when there is no loop. */
  since: number | null;
  /** 0-based index of the step just observed. */
  step: number;
}

/** Events of {@link StepLoopDetector} (eventemitter3). */
export interface StepLoopDetectorEvents {
  /** A nudge or a stop was returned. */
  stepLoopDetected: [verdict: StepVerdict];
  /** A nudge or stop was written to the state machine. */
  stepLoopRecorded: [entry: ContextEntry];
}
