import type { OutputSignature } from '../signatures/outputSignature.js';
import type { ValidationFlag } from './iterationHistory.js';

/** The guards of a {@link GuardSet}, named after what they watch. */
export type GuardName =
  | 'max_iterations'
  | 'max_runtime'
  | 'consecutive_failures'
  | 'repeated_output'
  | 'quality_regression'
  | 'thrashing';

/**
 * The order in which a {@link GuardSet} runs its guards; the first that blocks wins. Bounds come
 * first (iterations, then time), then the signs of being stuck from the most direct (failures,
 * repeated output) to the slowest to show (quality, thrashing).
 */
export const GUARD_ORDER: readonly GuardName[] = Object.freeze([
  'max_iterations',
  'max_runtime',
  'consecutive_failures',
  'repeated_output',
  'quality_regression',
  'thrashing',
]);

/**
 * One finished iteration as the guard set sees it. Every field but `iteration` is optional: give
 * what the runner knows.
 * @example { iteration: 2, output: 'FAIL src/a.test.ts > adds', passed: false, filesModified: ['src/a.ts'] }
 */
export interface GuardIteration {
  /** 1-based iteration number. */
  iteration: number;
  /** What the agent or the validation printed; analysed into an error and output signature. */
  output?: string;
  /** Whether validation passed. When absent, an output with an error counts as a failure. */
  passed?: boolean;
  /** Quality in 0..1 (pass rate, coverage) for quality regression. */
  score?: number;
  /** Validator findings; `file: /path` references count as modifications for thrashing. */
  flags?: readonly ValidationFlag[];
  /** Files the iteration changed (for example from a diff); count as modifications for thrashing. */
  filesModified?: readonly string[];
}

/** A finished iteration with what the guard set derived from it once, for all guards. */
export interface AnalysedIteration {
  /** The iteration as given. */
  entry: GuardIteration;
  /** Signature of `entry.output`; `null` when there is no output. */
  signature: OutputSignature | null;
  /** The output is an infrastructure error (rate limit, 5xx, timeout, reset): neither a failure nor a repeat. */
  infrastructure: boolean;
  /** The output matches an exempt signature: legitimate repetition, neither a failure nor a repeat. */
  exempt: boolean;
  /** The iteration failed (`passed: false`, or no `passed` and an error in the output), and is not infrastructure. */
  failed: boolean;
}

/** Everything a guard may look at. */
export interface GuardState {
  /** The iteration about to run, 1-based. */
  iteration: number;
  /** When the run started, epoch ms; `null` when unknown (max runtime is then not checked). */
  startedAt: number | null;
  /** Now, epoch ms, from the guard set's clock. */
  now: number;
  /** The finished iterations, oldest first, analysed. */
  history: readonly AnalysedIteration[];
  /** The failed iterations in a row at the end of `history` (infrastructure errors and exempt outputs skipped), oldest first. */
  failureRun: readonly AnalysedIteration[];
  /**
   * Failed iterations in a row at the end of the run: `failureRun.length`, unless the caller counted
   * them itself (seed 001 passes `consecutiveErrors`).
   */
  consecutiveFailures: number;
}

/** A guard's decision to block, with the facts it decided on. */
export interface GuardVerdict {
  /** The guard that blocked. */
  guard: GuardName;
  /** Why, in words (the seeds' messages). */
  message: string;
  /** The facts: counts, thresholds, iterations, signatures, files. */
  evidence: Readonly<Record<string, unknown>>;
}

/**
 * One guard: a small strategy that looks at the state and blocks (returns a verdict) or lets the
 * iteration run (returns `null`). It must not throw on a well-formed state.
 */
export interface Guard {
  /** Which guard this is. */
  readonly name: GuardName;
  /** The verdict when the guard blocks, else `null`. */
  check(state: GuardState): GuardVerdict | null;
}
