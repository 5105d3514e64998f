/** One validation flag of an iteration (seed 000); thrashing reads `file: /path` references in `message`. */
export interface ValidationFlag {
  /** Free text, e.g. `Error in file: /src/api.ts`. */
  message: string;
  /** Anything else the validator attaches (severity, rule id, ...). */
  [key: string]: unknown;
}

/** The validation outcome of one iteration (seed 000). */
export interface ValidationResult {
  /** Whether validation passed; an absent value counts neither as a pass nor as a failure. */
  passed?: boolean;
  /** Quality in 0..1 (pass rate, coverage); when absent, quality is 1 for a pass and 0 for a failure. */
  score?: number;
  /** Findings of the validator. */
  flags?: readonly ValidationFlag[];
}

/**
 * One finished iteration, oldest first in a history (seed 000).
 * @example { iteration: 1, validationResult: { passed: false } }
 */
export interface IterationHistoryEntry {
  /** 1-based iteration number. */
  iteration: number;
  /** How the iteration validated. */
  validationResult: ValidationResult;
}

/**
 * Configuration of an iteration loop (seed 000). Only `maxIterations` and `circuitBreakerThreshold`
 * are read by the guards.
 * @example { maxIterations: 10, completionPromises: ['All tests pass'], circuitBreakerThreshold: 3 }
 */
export interface IterationConfig {
  /** Hard limit on iterations (1-based: iteration `maxIterations + 1` is blocked). Integer ≥ 1. */
  maxIterations: number;
  /** Phrases that mark completion; not used by the guards. */
  completionPromises: readonly string[];
  /** Validation rules; not used by the guards. */
  validationRules?: readonly unknown[];
  /**
   * Consecutive failed validations that open the circuit breaker. Integer ≥ 1.
   * @default 3
   */
  circuitBreakerThreshold?: number;
}
