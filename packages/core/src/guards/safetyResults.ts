/** What {@link checkMaxIterations} returns (seed 000). */
export interface SafetyCheckResult {
  /** Whether the iteration may run. */
  allowed: boolean;
  /** Why not, when `allowed` is `false`. */
  message?: string;
}

/** What {@link checkCircuitBreaker} returns (seed 000). */
export interface CircuitBreakerResult {
  /** Whether the breaker is open (iteration must stop). */
  open: boolean;
  /** Failed validations at the end of the history, in a row. */
  consecutiveFailures: number;
  /** Why, when `open`. */
  message?: string;
}

/** What {@link checkQualityRegression} returns (seed 000). */
export interface QualityRegressionResult {
  /** Whether the last `window` (3) iterations all declined. */
  regression: boolean;
  /**
   * Iteration-to-iteration steps inside the run of declining iterations at the end of the history
   * (`decliningIterations - 1`, never below 0): 2 when a regression over the window of 3 first fires,
   * as in the seed's example.
   */
  consecutiveDeclines: number;
  /** Declining iterations at the end of the history, in a row. */
  decliningIterations: number;
  /** Why, when `regression`. */
  message?: string;
}

/** What {@link checkThrashing} returns (seed 000). */
export interface ThrashingResult {
  /** Whether some file was modified `threshold` or more times. */
  thrashing: boolean;
  /** The files modified `threshold` or more times, in order of first appearance. */
  affectedFiles: string[];
  /** Why, when `thrashing`. */
  message?: string;
}

/** Which seed 000 guard blocked, in priority order. */
export type SafetyBlocker = 'max_iterations' | 'circuit_breaker' | 'quality_regression' | 'thrashing';

/** What {@link runSafetyChecks} returns (seed 000). */
export interface CombinedSafetyResult {
  /** Whether the next iteration may run. */
  canContinue: boolean;
  /** The first guard that blocked. */
  blockedBy?: SafetyBlocker;
  /** That guard's message. */
  message?: string;
}
