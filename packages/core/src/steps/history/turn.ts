import type { StepEvidence } from '../keys/stepEvidence.js';
import type { ProbeRun } from '../probes/ProbeLedger.js';
import type { Sketch } from './sketch.js';

/** One tool call with its result, as the rules see it. */
export interface Turn {
  /** Step index of the observation (or of the action when no observation followed). */
  step: number;
  /** Normalised identity of the action; `''` for a rejected turn with no action. */
  actionKey: string;
  /** The action's tool; `''` when there was no action. */
  tool: string;
  /** The action's text (for near-duplicate sketches). */
  actionText: string;
  /** The outcome: an order-insensitive hash of the observation's line fingerprints (0: no observation). */
  outcomeKey: number;
  /** `actionKey` and `outcomeKey` together, as one 32-bit hash (`pairKeyOf`); a validated snapshot's is computed again. */
  pairKey: number;
  /** Whether the observation was a failure. */
  error: boolean;
  /** For a failure, the fingerprint of its first error line (the error's class); else 0. */
  errorClass: number;
  /** Whether the turn taught the agent something: see {@link StepHistory}. */
  informative: boolean;
  /** A silent success (no output lines, no failure): an effect, neither news nor a stale result. */
  quiet: boolean;
  /** A reply the harness rejected: no action (a format error) or an empty one. */
  rejected: boolean;
  /**
   * A change that went through: the action changes files or the environment, runs no probe, and
   * its result came back without failing. An effect on the work, not a look: neither news nor stale.
   */
  applied: boolean;
  /**
   * For an applied change, where it left the work: an order-sensitive hash of its reply's lines
   * (as fingerprinted), its repeated lines and its length, so that two replies showing the same
   * lines in another arrangement differ. 0 for any other turn.
   */
  state: number;
  /** Length of the observation's output. */
  outputLength: number;
  /** Lines of the output whose shape occurred earlier in it (a block repeated inside the output). */
  duplicates: number;
  /** Near-duplicate sketch of the action, computed when first needed. */
  sketch?: Sketch;
  /** The files the action names (see `targetsOf`), computed when first needed. */
  targets?: string;
  /** The action's text without its numbers (see `NearDuplicateRule`), computed when first needed; not kept in snapshots. */
  placedText?: string;
  /** Shortened texts for evidence. */
  evidence: StepEvidence;
  /** What the turn changed and what its probe showed (see `ProbeLedger`); not kept in snapshots. */
  probeRun?: ProbeRun;
  /** A turn with no observation closed by the same call again (a repeat in progress); not kept in snapshots. */
  calledAgain?: boolean;
}

/** One message, as the rules see it. */
export interface MessageTurn {
  /** Its step number. */
  step: number;
  /**
   * Whitespace collapsed, lower-cased, digits left out (`messageKey`); computed when first read
   * (`StepHistory.messageKeyOf`): only a monologue's messages are compared by it.
   */
  key?: string;
  /** Whether the message has nothing but digits and whitespace (its key is `''`): a rejected reply. */
  blank: boolean;
  /** The message as the model wrote it. */
  text: string;
  /** Near-duplicate sketch, computed when first needed. */
  sketch?: Sketch;
  /** What a verdict quotes of it. */
  evidence: StepEvidence;
}
