import { checkCircuitBreaker } from './checkCircuitBreaker.js';
import type { Guard, GuardState, GuardVerdict } from './Guard.js';

/**
 * Blocks after `limit` failed iterations in a row (seed 000's circuit breaker, seed 001's
 * consecutive error limit). Infrastructure errors and exempt outputs are skipped: they neither
 * count nor break the run.
 * @example new ConsecutiveFailuresGuard(3) // message: 'Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3). Manual intervention required.'
 */
export class ConsecutiveFailuresGuard implements Guard {
  readonly name = 'consecutive_failures';

  /** @param limit - failures in a row that block, integer ≥ 1. */
  constructor(private readonly limit: number) {}

  /** Blocks when the counted iterations end with `limit` failures. */
  check(state: GuardState): GuardVerdict | null {
    const counted = state.history.filter((item) => !item.infrastructure && !item.exempt);
    const entries = counted.map((item) => ({
      iteration: item.entry.iteration,
      validationResult: { passed: !item.failed },
    }));
    const result = checkCircuitBreaker(entries, this.limit);
    if (!result.open) return null;
    const failures = counted.slice(-result.consecutiveFailures);
    return {
      guard: this.name,
      message: result.message ?? this.name,
      evidence: {
        consecutiveFailures: result.consecutiveFailures,
        limit: this.limit,
        iterations: failures.map((item) => item.entry.iteration),
        signatures: failures.map((item) => item.signature?.error.signature ?? null),
      },
    };
  }
}
