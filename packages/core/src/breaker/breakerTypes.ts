import type { InfrastructureKind } from '../signatures/infrastructure.js';

/**
 * States of a {@link StagnationBreaker}:
 * - `CLOSED`: iterations run normally;
 * - `OPEN`: stagnation detected, the run's action (pause, alert, abort, escalate) is due;
 * - `HALF_OPEN`: after the cooldown, trial iterations test whether the stagnation is resolved.
 */
export type BreakerState = 'CLOSED' | 'HALF_OPEN' | 'OPEN';

/** Every {@link BreakerState}, in the order of the seed's constants (0, 1, 2 are CLOSED, OPEN, HALF_OPEN). */
export const BREAKER_STATES: readonly BreakerState[] = Object.freeze(['CLOSED', 'OPEN', 'HALF_OPEN']);

/**
 * What one finished iteration of an agent command showed. Every field is optional: a signal whose
 * facts are missing reports itself *unavailable* instead of guessing.
 * @example { iteration: 3, filesChanged: 0, output: 'TypeError: x is not a function', completionClaimed: false }
 */
export interface IterationObservation {
  /** The iteration's number, 1-based. */
  iteration: number;
  /**
   * Files changed against the commit the iteration started from (committed or not). `null` when the
   * workspace is not a git repository: the no-file-changes signal is then unavailable.
   */
  filesChanged?: number | null;
  /** The iteration's output (stdout and stderr); its normalised error signature feeds the same-error signal. */
  output?: string;
  /**
   * Infrastructure trouble judged from the agent's structured result or the last lines of its output
   * (never from echoed file contents). An infrastructure iteration is never counted as stagnation.
   */
  infrastructure?: InfrastructureKind | null;
  /** The task in progress and whether the iteration finished it (a plan item checked). `null`: no task known. */
  task?: { id: string; done: boolean } | null;
  /** The agent claimed completion (a completion promise in its output). */
  completionClaimed?: boolean;
  /**
   * Why the evidence for completion fails (`evidence command exited 1`, `missing file dist/app.js`);
   * `[]` when the evidence holds, `null` or absent when no evidence is configured.
   */
  evidenceProblems?: readonly string[] | null;
  /**
   * The loop type when the step-level detector stopped the iteration mid-run
   * (`repeated_action`, `same_error`, …); `null` or absent when it did not.
   */
  stepLoopStopped?: string | null;
  /**
   * The tools whose calls were denied a permission in the iteration (Claude Code's
   * `permission_denials`, tool results saying a permission was denied); `[]` when none, `null` or
   * absent when unknown.
   */
  permissionDenials?: readonly string[] | null;
  /** The files the iteration changed (for the test-only signal); `null` or absent when unknown (outside git). */
  changedFiles?: readonly string[] | null;
}

/** The signals of a {@link StagnationBreaker}, named after what they watch. */
export type SignalName =
  | 'no_file_changes'
  | 'same_error'
  | 'task_not_progressing'
  | 'completion_without_evidence'
  | 'step_loop_stopped'
  | 'permission_denied'
  | 'test_only';

/**
 * How one signal judged one iteration:
 * - `stalled`: evidence of no progress (the signal's streak grows);
 * - `progress`: evidence of progress (the streak resets);
 * - `clear`: nothing wrong, but no progress either (the streak resets);
 * - `unavailable`: the signal cannot judge (not a git repository, no task): the streak is kept.
 */
export type SignalStatus = 'stalled' | 'progress' | 'clear' | 'unavailable';

/** One signal's reading of one iteration. */
export interface SignalReading {
  /** Which signal. */
  signal: SignalName;
  /** Its judgement. */
  status: SignalStatus;
  /** Stalled iterations in a row with the same key (same error signature, same task), after this one. */
  streak: number;
  /** The streak at which the signal trips the breaker. */
  threshold: number;
  /** What it saw, in words (`no files changed since abc1234`, `same error 3 times: TypeError: …`). */
  detail: string;
}

/** A change of state, emitted as `breakerStateChanged` and persisted as a row. */
export interface BreakerTransition {
  /** The run the breaker belongs to. */
  runId: string;
  /** When, epoch ms. */
  at: number;
  /** The state before. */
  from: BreakerState;
  /** The state after. */
  to: BreakerState;
  /** Why (`no_file_changes: no files changed for 3 iterations`, `cooldown elapsed`, `manual reset`). */
  reason: string;
}

/**
 * How an iteration counted overall:
 * - `progress`: some signal saw progress and none reached its threshold;
 * - `stalled`: no signal saw progress and some saw stagnation;
 * - `unknown`: no signal could tell;
 * - `infrastructure`: rate limit, 5xx, network timeout: not judged at all (wait and retry).
 */
export type IterationProgress = 'progress' | 'stalled' | 'unknown' | 'infrastructure';

/** What {@link StagnationBreaker.record} returns. */
export interface BreakerVerdict {
  /** The state after the iteration. */
  state: BreakerState;
  /** Whether this iteration opened the breaker. */
  tripped: boolean;
  /** How the iteration counted. */
  progress: IterationProgress;
  /** Every signal's reading (empty for an infrastructure iteration). */
  readings: SignalReading[];
  /** Why the breaker opened, when it did; else `null`. */
  reason: string | null;
}
