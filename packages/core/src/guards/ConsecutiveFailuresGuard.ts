import type { Guard, GuardState, GuardVerdict } from './Guard.js';

/** Failed iterations in a row that block by default (seed 000's circuit breaker threshold). */
export const DEFAULT_CIRCUIT_BREAKER_THRESHOLD = 3;

/**
 * Blocks after `limit` failed iterations in a row (seed 000's circuit breaker, seed 001's
 * consecutive error limit). Infrastructure errors and exempt outputs are skipped: they neither
 * count nor break the run.
 * @example new ConsecutiveFailuresGuard(3) // message: 'Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3). Manual intervention required.'
 */
export class ConsecutiveFailuresGuard implements Guard {
  readonly name = 'consecutive_failures';

  /** @param limit - failures in a row that block, integer ≥ 1. */
  constructor(private readonly limit: number = DEFAULT_CIRCUIT_BREAKER_THRESHOLD) {}

  /** Blocks when the run ends with `limit` or more failures. */
  check(state: GuardState): GuardVerdict | null {
    const count = state.consecutiveFailures;
    if (count < this.limit) return null;
    return {
      guard: this.name,
      message: `Circuit breaker OPEN: ${count} consecutive validation failures (threshold: ${this.limit}). Manual intervention required.`,
      evidence: {
        consecutiveFailures: count,
        limit: this.limit,
        iterations: state.failureRun.map((item) => item.entry.iteration),
        signatures: state.failureRun.map((item) => item.signature?.error.signature ?? null),
      },
    };
  }
}
