import { ConfigurationError, InvalidInputError } from './errors.js';
import { describeValue } from './validate.js';

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

/**
 * Wraps an injected clock so that every reading is checked: `now()` must return a finite number
 * (epoch ms). Anything else (`NaN`, a string, a throw) is a ConfigurationError naming the clock, before
 * anything is stamped or written with it. Every component that takes a clock wraps it once.
 * @param clock - the injected clock; `null`, a non-object or an object without `now()` is rejected.
 * @param name - how the caller calls it, e.g. `options.clock`.
 * @throws InvalidInputError when `clock` has no `now()` method.
 * @example this.clock = checkedClock(options.clock ?? systemClock, 'options.clock');
 */
export function checkedClock(clock: Clock, name: string): Clock {
  if (clock === systemClock) return clock;
  if (clock === null || typeof clock !== 'object' || typeof clock.now !== 'function') {
    throw new InvalidInputError(`${name} must have a now() method, got ${describeValue(clock)}`);
  }
  return {
    now() {
      const time: unknown = clock.now();
      if (typeof time !== 'number' || !Number.isFinite(time)) {
        throw new ConfigurationError(
          `${name}.now() must return finite epoch milliseconds, got ${describeValue(time)}`,
        );
      }
      return time;
    },
  };
}
