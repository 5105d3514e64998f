import type { Guard, GuardState, GuardVerdict } from './Guard.js';

/**
 * Blocks the iteration about to run when its 1-based number exceeds `maxIterations`: with 10,
 * iterations 1..10 run and iteration 11 is blocked. (Seed 001 counts finished iterations; its
 * wrapper passes the iteration about to run, so both seeds share this rule.)
 * @example new MaxIterationsGuard(10) // message: 'Iteration 11 exceeds maximum of 10. Circuit breaker triggered.'
 */
export class MaxIterationsGuard implements Guard {
  readonly name = 'max_iterations';

  /** @param maxIterations - iterations allowed, integer ≥ 1. */
  constructor(private readonly maxIterations: number) {}

  /** Blocks when `state.iteration > maxIterations`. */
  check(state: GuardState): GuardVerdict | null {
    if (state.iteration <= this.maxIterations) return null;
    return {
      guard: this.name,
      message: `Iteration ${state.iteration} exceeds maximum of ${this.maxIterations}. Circuit breaker triggered.`,
      evidence: { iteration: state.iteration, maxIterations: this.maxIterations },
    };
  }
}
