import { checkMaxIterations } from './checkMaxIterations.js';
import type { Guard, GuardState, GuardVerdict } from './Guard.js';

/**
 * Blocks the iteration about to run when it is beyond `maxIterations` (1-based, as seed 000).
 * @example new MaxIterationsGuard(10).check({ ...state, iteration: 11 })?.message;
 * // 'Iteration 11 exceeds maximum of 10. Circuit breaker triggered.'
 */
export class MaxIterationsGuard implements Guard {
  readonly name = 'max_iterations';

  /** @param maxIterations - iterations allowed, integer ≥ 1. */
  constructor(private readonly maxIterations: number) {}

  /** Blocks when `state.iteration > maxIterations`. */
  check(state: GuardState): GuardVerdict | null {
    const result = checkMaxIterations(state.iteration, this.maxIterations);
    if (result.allowed) return null;
    return {
      guard: this.name,
      message: result.message ?? this.name,
      evidence: { iteration: state.iteration, maxIterations: this.maxIterations },
    };
  }
}
