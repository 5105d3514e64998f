import type { MessageTurn, StepEvidence, StepHistory, Turn } from '../history/stepHistory.js';
import type { SnapshotPart } from '../options/stepSnapshot.js';

/**
 * The loops {@link StepLoopDetector} recognises:
 * - `repeated_action`: the same action with the same observation, again and again;
 * - `near_duplicate`: actions that differ a little (a shifted line range, a reworded search) with the same outcome;
 * - `growing_output`: the same action while its output only accumulates lines already seen;
 * - `same_error`: failures of the same class (the same command, or different ones), whatever their noise;
 * - `stagnation`: different actions, and nothing learned: the same outcome, or no new result at all;
 * - `outcome_stagnation`: the code changes between runs of a probe (a script, a test), its result does not;
 * - `rejected_turn`: replies the harness rejects (a format error, an empty reply, no command);
 * - `oscillation`: A-B-A-B between two turns;
 * - `cycle`: a sequence of 3 to `maxCycleLength` turns repeated;
 * - `repeated_message`: the same or nearly the same message with nothing learned in between;
 * - `chanting`: one message repeating the same text many times inside itself.
 */
export type StepLoopType =
  | 'repeated_action'
  | 'near_duplicate'
  | 'growing_output'
  | 'same_error'
  | 'stagnation'
  | 'outcome_stagnation'
  | 'rejected_turn'
  | 'oscillation'
  | 'cycle'
  | 'repeated_message'
  | 'chanting';

/** What a rule found: the loop, how often it repeated, and the steps that show it. */
export interface RuleHit {
  /** The loop the rule found. */
  loopType: StepLoopType;
  /** How many times the repeating unit (a turn, a cycle, a message, a line) occurred. */
  repeats: number;
  /** Step index where the loop began. */
  since: number;
  /** The steps that show it, oldest first. */
  evidence: StepEvidence[];
  /** One sentence naming what repeats, for the nudge message. */
  summary: string;
  /** The next step that fits the evidence; the loop type's general advice when absent. */
  advice?: string;
  /**
   * What counts as progress once this loop is nudged (see `StepLadder`): `turn` (default) any
   * informative turn; `probe` only a probe result that moved; `verdict` only a probe whose key
   * lines moved (or that has none); `rejection` only an attempt of the
   * refused tool that goes through or is refused otherwise; `retry` only a change, or the retried
   * call going through or failing otherwise; `search` only a read that shows the name sought, or a change.
   */
  progress?: LoopProgress;
  /**
   * Whether this loop was nudged before a turn that ended the nudge without being progress on it
   * (after an outcome nudge, a result moved by a new question: see `asksAnew`): the hit stops
   * instead of nudging again. Default `false`.
   */
  nudged?: boolean;
}

/** What ends a nudged loop: see {@link RuleHit.progress}. */
export type LoopProgress = 'turn' | 'probe' | 'verdict' | 'rejection' | 'retry' | 'search' | 'debug';

/** What a rule is asked to judge: a completed turn or a message. */
export type JudgedEvent =
  | {
      /** A tool call with its result. */
      kind: 'turn';
      /** The call and what it returned. */
      turn: Turn;
    }
  | {
      /** The model's text. */
      kind: 'message';
      /** The message, as the rules read it. */
      message: MessageTurn;
    };

/**
 * One loop rule: a small strategy that looks at the newest event and the run's history and
 * reports a hit or `null`. Rules never change the history.
 *
 * A rule that keeps state of its own between steps implements {@link SnapshotPart} as well
 * (`snapshot()` and `restore(state)`): {@link StepLoopDetector.snapshot} stores it under the rule's
 * `loopType` (so two stateful rules must not share one), and a restored detector hands it back.
 */
export interface StepRule extends Partial<SnapshotPart> {
  /** The loop this rule reports. */
  readonly loopType: StepLoopType;
  /** A hit when the newest event completes (or continues) this rule's loop, else `null`. */
  judge(event: JudgedEvent, history: StepHistory): RuleHit | null;
}
