import { type Clock, InvalidInputError, ManualClock } from '@loopguard/core';

/** An opaque handle returned by {@link Timer.setTimeout}. */
export type TimerHandle = unknown;

/**
 * The timer port (a `setTimeout` / `clearTimeout` abstraction): the loop schedules its interval
 * ticks and executor timeouts through it, so that tests drive time with {@link ManualTimer} and never sleep.
 *
 * @example
 * const timer: Timer = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
 */
export interface Timer {
  /** Calls `callback` once after `ms` milliseconds; returns a handle for {@link Timer.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancels a pending callback; a handle that already fired or was cleared is ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The longest delay Node's timers keep: 2^31 − 1 ms (about 24.8 days). A longer delay overflows and
 * fires after 1 ms, so every duration option that becomes a timer is checked against it.
 * @example z.number().max(MAX_TIMER_DELAY)
 */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

/**
 * The real timer: Node's `setTimeout` and `clearTimeout`. The default wherever a timer is optional.
 * A delay above {@link MAX_TIMER_DELAY} is clamped to it (Node would fire it after 1 ms).
 */
export const systemTimer: Timer = {
  setTimeout: (callback, ms) => setTimeout(callback, Math.min(ms, MAX_TIMER_DELAY)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface PendingTimeout {
  readonly id: number;
  readonly dueAt: number;
  readonly callback: () => void;
}

/**
 * A timer that fires only when told to, sharing a core `ManualClock`: {@link ManualTimer.advance}
 * moves the clock to each due callback in order and fires it.
 *
 * @example
 * const clock = new ManualClock(0);
 * const timer = new ManualTimer(clock);
 * timer.setTimeout(() => console.log('fired at', clock.now()), 5_000);
 * timer.advance(10_000); // logs "fired at 5000"; clock.now() === 10_000
 */
export class ManualTimer implements Timer, Clock {
  /** The clock this timer moves. */
  readonly clock: ManualClock;
  private readonly pending = new Map<number, PendingTimeout>();
  private nextId = 1;

  /** @param clock - the clock to read and move. @default new ManualClock(0) */
  constructor(clock: ManualClock = new ManualClock(0)) {
    this.clock = clock;
  }

  /** The clock's time, epoch ms. */
  now(): number {
    return this.clock.now();
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    if (typeof callback !== 'function') {
      throw new InvalidInputError(`callback must be a function, got ${typeof callback}`);
    }
    const id = this.nextId++;
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.pending.set(id, { id, dueAt: this.clock.now() + delay, callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    if (typeof handle === 'number') this.pending.delete(handle);
  }

  /** How many callbacks are waiting. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** When the next callback is due, epoch ms; `undefined` when none is waiting. */
  nextDueAt(): number | undefined {
    return this.next()?.dueAt;
  }

  /**
   * Moves time forward by `ms`, firing every callback that falls due on the way, in due order
   * (callbacks scheduled while firing fire too when they fall inside the span).
   */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) {
      throw new InvalidInputError(`ms must be a non-negative finite number, got ${String(ms)}`);
    }
    const target = this.clock.now() + ms;
    for (let due = this.next(); due !== undefined && due.dueAt <= target; due = this.next()) {
      this.pending.delete(due.id);
      if (due.dueAt > this.clock.now()) this.clock.set(due.dueAt);
      due.callback();
    }
    this.clock.set(target);
  }

  /** Moves time to the next due callback and fires it (and any due at the same time); `false` when none waits. */
  fireNext(): boolean {
    const due = this.next();
    if (due === undefined) return false;
    this.advance(Math.max(0, due.dueAt - this.clock.now()));
    return true;
  }

  private next(): PendingTimeout | undefined {
    let best: PendingTimeout | undefined;
    for (const entry of this.pending.values()) {
      if (
        best === undefined ||
        entry.dueAt < best.dueAt ||
        (entry.dueAt === best.dueAt && entry.id < best.id)
      ) {
        best = entry;
      }
    }
    return best;
  }
}
