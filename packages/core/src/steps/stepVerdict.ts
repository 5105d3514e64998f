import type { ContextEntry } from '../model/contextEntry.js';
import type { StepEvidence } from './history/stepHistory.js';
import { shorten } from './keys/shorten.js';
import type { StreamChant } from './rules/ChantingStream.js';
import type { RuleHit, StepLoopType } from './rules/StepRule.js';
import { stepLoopMessage } from './stepLoopMessage.js';

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
  /**
   * 1-based number of the tool call at which the verdict fell: the call just observed, or whose
   * result or following message was (0 before the first call). What a person reads (`call 4`);
   * `step` counts actions, results and messages apart.
   */
  toolCall: number;
  /**
   * Whether this loop was nudged at an earlier step: `true` on the stop that ends a nudged loop
   * (and on the `continue`s between); `false` on a nudge, on a stop that came without one (chanting
   * cut off while it streams) and when there is no loop. A loop is counted once: by the verdict
   * that does not follow a nudge.
   */
  followsNudge: boolean;
}

/** Events of {@link StepLoopDetector} (eventemitter3). */
export interface StepLoopDetectorEvents {
  /** A nudge or a stop was returned. */
  stepLoopDetected: [verdict: StepVerdict];
  /** A nudge or stop was written to the state machine. */
  stepLoopRecorded: [entry: ContextEntry];
}

/** The verdict of a step with no loop, at tool call `toolCall`. */
export function continueVerdict(step: number, toolCall: number): StepVerdict {
  return {
    action: 'continue',
    loopType: null,
    repeats: 0,
    evidence: [],
    message: null,
    since: null,
    step,
    toolCall,
    followsNudge: false,
  };
}

/**
 * The stop for chanting found while a message streams: no nudge first, since inside one message a
 * nudge cannot be heard.
 */
export function chantingStop(found: StreamChant, step: number, toolCall: number): StepVerdict {
  const hit: RuleHit = {
    loopType: 'chanting',
    repeats: found.count,
    since: step,
    evidence: [{ step, call: toolCall, message: shorten(found.segment) }],
    summary: `the reply being written repeated "${shorten(found.segment, 60)}" ${found.count} times`,
  };
  return {
    action: 'stop',
    loopType: 'chanting',
    repeats: found.count,
    evidence: hit.evidence,
    message: stepLoopMessage('stop', hit),
    since: step,
    step,
    toolCall,
    followsNudge: false,
  };
}
