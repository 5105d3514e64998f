/** Source of time, injected so that every rule can be tested without sleeping. */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
}

/** The real clock (`Date.now()`). The default everywhere a clock is optional. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that only moves when told to: for tests and simulations.
 *
 * @example
 * const clock = new ManualClock(0);
 * clock.advance(60_000); // clock.now() === 60_000
 */
export class ManualClock implements Clock {
  private current: number;

  /** @param start - initial time, epoch ms. @default 0 */
  constructor(start = 0) {
    this.current = start;
  }

  /** Current time, epoch ms. */
  now(): number {
    return this.current;
  }

  /** Moves time forward by `ms` (must be ≥ 0). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`advance(ms): ms must be a non-negative number, got ${ms}`);
    this.current += ms;
  }

  /** Sets the time to `time`, epoch ms. */
  set(time: number): void {
    this.current = time;
  }
}
