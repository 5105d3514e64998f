import type { Guard, GuardState, GuardVerdict } from './Guard.js';

/** Milliseconds in a minute. */
const MINUTE = 60_000;

/**
 * Blocks once the run has lasted `maxRuntimeMinutes` or more (seed 001). Not checked when the run's
 * start is unknown.
 * @example new MaxRuntimeGuard(15).check({ ...state, startedAt: 0, now: 15 * 60_000 })?.message;
 * // 'max_runtime (15min) exceeded'
 */
export class MaxRuntimeGuard implements Guard {
  readonly name = 'max_runtime';

  /** @param maxRuntimeMinutes - minutes allowed, positive. */
  constructor(private readonly maxRuntimeMinutes: number) {}

  /** Blocks when `now - startedAt >= maxRuntimeMinutes`. */
  check(state: GuardState): GuardVerdict | null {
    if (state.startedAt === null) return null;
    const elapsedMinutes = (state.now - state.startedAt) / MINUTE;
    if (elapsedMinutes < this.maxRuntimeMinutes) return null;
    return {
      guard: this.name,
      message: `max_runtime (${this.maxRuntimeMinutes}min) exceeded`,
      evidence: {
        elapsedMinutes,
        maxRuntimeMinutes: this.maxRuntimeMinutes,
        startedAt: state.startedAt,
        now: state.now,
      },
    };
  }
}
