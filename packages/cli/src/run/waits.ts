import { setTimeout as timerSleep } from 'node:timers/promises';
import type { Clock } from '@loopguard/core';
import type { StagnationBreaker } from '@loopguard/core/breaker';
import { infrastructureWaitMs } from '@loopguard/core/internal';
import { formatDuration } from './duration.js';
import type { RunDisplay } from './RunDisplay.js';
import type { RunOptions } from './runOptions.js';

/** Sleeps `ms` unless `signal` aborts first (then it rejects). Injected with the clock in tests. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** The real {@link Sleep}. */
export const realSleep: Sleep = async (ms, signal) => {
  await timerSleep(ms, undefined, { signal });
};

/** What {@link RunWaits} waits with. */
export interface RunWaitsInput {
  /** The run id, for the events. */
  runId: string;
  /** The options (`onStagnation`, `maxCallsPerHour`, `backoff`). */
  options: RunOptions;
  /** Where the events and the live line go. */
  display: RunDisplay;
  /** Stops every wait (the user's interrupt). */
  signal: AbortSignal;
  /** Source of time. */
  clock: Clock;
  /** How to sleep. */
  sleep: Sleep;
}

const HOUR_MS = 3_600_000;

/**
 * The waits of `loopguard run`: an `OPEN` breaker's cooldown, `--max-calls-per-hour`, and the
 * back-off after infrastructure trouble. Each wait redraws the live line every second and returns
 * `false` when the user interrupts.
 */
export class RunWaits {
  private readonly callTimes: number[] = [];
  private consecutiveInfrastructure = 0;

  constructor(private readonly input: RunWaitsInput) {}

  /** Counts an agent call (for `--max-calls-per-hour`). */
  countCall(at: number): void {
    this.callTimes.push(at);
  }

  /** Waits for an `OPEN` breaker's cooldown and for `--max-calls-per-hour`; `false` when interrupted. */
  async beforeIteration(breaker: StagnationBreaker): Promise<boolean> {
    const { runId, options, display, clock } = this.input;
    if (options.onStagnation !== 'alert' && breaker.state === 'OPEN') {
      const waitMs = breaker.cooldownRemainingMs();
      display.event(
        'cooldown_wait',
        { run: runId, waitMs },
        `breaker OPEN: trial iterations in ${formatDuration(waitMs)} (loopguard reset ${runId} closes it now)`,
      );
      const live = (left: number) =>
        `breaker ${display.state('OPEN')}: cooldown ${formatDuration(left)} left`;
      if (!(await this.pause(waitMs, live))) return false;
    }
    const limit = options.maxCallsPerHour;
    if (limit === undefined) return true;
    const hourAgo = clock.now() - HOUR_MS;
    while (this.callTimes.length > 0 && (this.callTimes[0] ?? 0) <= hourAgo) this.callTimes.shift();
    if (this.callTimes.length < limit) return true;
    const waitMs = (this.callTimes[0] ?? 0) + HOUR_MS - clock.now();
    display.event(
      'call_limit_wait',
      { run: runId, waitMs, limit },
      `${limit} calls in the last hour: waiting ${formatDuration(waitMs)}`,
    );
    return this.pause(waitMs, (left) => `call limit: ${formatDuration(left)} left`);
  }

  /**
   * After an iteration: waits the back-off when it hit infrastructure trouble (doubling, or until
   * the stated reset time), and forgets the streak otherwise; `false` when interrupted.
   */
  async afterIteration(
    iteration: number,
    infrastructure: { kind: string; resetAt: number | null } | null,
  ): Promise<boolean> {
    if (infrastructure === null) {
      this.consecutiveInfrastructure = 0;
      return true;
    }
    const { runId, options, display, clock } = this.input;
    this.consecutiveInfrastructure += 1;
    const waitMs = infrastructureWaitMs({
      consecutive: this.consecutiveInfrastructure,
      now: clock.now(),
      resetAt: infrastructure.resetAt,
      baseMs: options.backoff,
    });
    const { kind, resetAt } = infrastructure;
    display.event(
      'infrastructure_wait',
      { run: runId, iteration, kind, waitMs, resetAt },
      `${kind.replace('_', ' ')} (not counted as stagnation): waiting ${formatDuration(waitMs)} before retrying`,
    );
    return this.pause(waitMs, (left) => `${kind} back-off: ${formatDuration(left)} left`);
  }

  /** Sleeps `ms`, redrawing the live line each second; `false` when interrupted. */
  private async pause(ms: number, live: (left: number) => string): Promise<boolean> {
    const { clock, signal, display, sleep } = this.input;
    const end = clock.now() + ms;
    while (clock.now() < end) {
      if (signal.aborted) return false;
      display.live(live(end - clock.now()));
      try {
        await sleep(Math.min(1000, end - clock.now()), signal);
      } catch {
        return false;
      }
    }
    return !signal.aborted;
  }
}
