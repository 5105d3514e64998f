import type { Logger } from '@loopguard/core/internal';
import type { Timer, TimerHandle } from './timer.js';

/** Shortest tick interval, ms: configured intervals below it are raised to it. */
export const MIN_TICK_INTERVAL = 5_000;
/** Longest tick interval, ms: configured intervals (and back-off) above it are lowered to it. */
export const MAX_TICK_INTERVAL = 300_000;

/**
 * Clamps an interval to [{@link MIN_TICK_INTERVAL}, {@link MAX_TICK_INTERVAL}].
 * @example clampInterval(1_000) // 5_000
 */
export function clampInterval(ms: number): number {
  return Math.min(MAX_TICK_INTERVAL, Math.max(MIN_TICK_INTERVAL, ms));
}

/**
 * What one scheduled run reports to the {@link TickScheduler}:
 * - `work`: something was done (or attempted); the interval returns to its base.
 * - `idle`: nothing to do; the interval backs off and the idle count grows.
 * - `halt`: stop scheduling (a storage error).
 */
export type TickOutcome = 'work' | 'idle' | 'halt';

/** Why scheduling stopped: asked to, too many idle ticks in a row, or a run halted it. */
export type StopReason = 'requested' | 'idle' | 'storage_error';

/** Options of {@link TickScheduler}; the loop passes its own, already validated. */
export interface TickSchedulerOptions {
  /** Base interval between ticks, ms (already clamped). */
  interval: number;
  /** Longest interval the idle back-off reaches, ms (already clamped, ≥ `interval`). */
  maxInterval: number;
  /** Factor the interval is multiplied by after each idle tick. */
  backoffFactor: number;
  /** Idle ticks in a row after which scheduling stops itself; `null` never stops. */
  maxIdleTicks: number | null;
  /** Where the interval is scheduled. */
  timer: Timer;
  /** Where faults of `run` are reported. */
  logger: Logger;
  /** Called after scheduling stopped by itself (not by {@link TickScheduler.stop}). */
  onSelfStop: (reason: Exclude<StopReason, 'requested'>) => void;
}

/**
 * Decides when ticks run: at once on {@link TickScheduler.request} (an event), otherwise after the
 * current interval; never two at a time (a request during a run is remembered and runs once after
 * it); the interval doubles (by `backoffFactor`) after each idle run up to `maxInterval` and returns
 * to its base after a run that did work; after `maxIdleTicks` idle runs in a row it stops itself.
 *
 * @example
 * const scheduler = new TickScheduler(async () => ((await loop.tick()).action?.type === 'idle' ? 'idle' : 'work'), options);
 * scheduler.start();
 */
export class TickScheduler {
  private active = false;
  private inFlight: Promise<void> | null = null;
  private requested = false;
  private handle: TimerHandle | undefined;
  private interval: number;
  private idle = 0;

  /**
   * @param run - runs one tick and says how it went; it should not throw (a throw counts as `work` and is logged).
   * @param options - see {@link TickSchedulerOptions}.
   */
  constructor(
    private readonly run: () => Promise<TickOutcome>,
    private readonly options: TickSchedulerOptions,
  ) {
    this.interval = options.interval;
  }

  /** Whether ticks are being scheduled. */
  get running(): boolean {
    return this.active;
  }

  /** Whether a run is in progress. */
  get busy(): boolean {
    return this.inFlight !== null;
  }

  /** The interval until the next timed tick, ms (grows while idle). */
  get currentInterval(): number {
    return this.interval;
  }

  /** Idle runs in a row. */
  get idleTicks(): number {
    return this.idle;
  }

  /** Starts scheduling and requests a tick at once. Returns `false` when already running. */
  start(): boolean {
    if (this.active) return false;
    this.active = true;
    this.idle = 0;
    this.interval = this.options.interval;
    this.request();
    return true;
  }

  /** Runs a tick at once, or once after the run in flight. Ignored while stopped. */
  request(): void {
    if (!this.active) return;
    if (this.inFlight !== null) {
      this.requested = true;
      return;
    }
    this.disarm();
    this.inFlight = this.runOnce();
  }

  /** Stops scheduling; resolves once the run in flight (if any) has finished. */
  async stop(): Promise<void> {
    this.active = false;
    this.requested = false;
    this.disarm();
    await this.settled();
  }

  /** Resolves when no run is in flight (including runs requested while waiting). */
  async settled(): Promise<void> {
    while (this.inFlight !== null) await this.inFlight;
  }

  private async runOnce(): Promise<void> {
    let outcome: TickOutcome;
    try {
      outcome = await this.run();
    } catch (error) {
      this.options.logger.error({ err: error }, 'Scheduled tick threw');
      outcome = 'work';
    }
    this.inFlight = null;
    if (!this.active) return;
    if (outcome === 'halt') {
      this.selfStop('storage_error');
      return;
    }
    if (outcome === 'idle') {
      this.idle++;
      const { maxIdleTicks } = this.options;
      if (maxIdleTicks !== null && this.idle >= maxIdleTicks) {
        this.selfStop('idle');
        return;
      }
      this.interval = Math.min(this.options.maxInterval, this.interval * this.options.backoffFactor);
    } else {
      this.idle = 0;
      this.interval = this.options.interval;
    }
    if (this.requested) {
      this.requested = false;
      this.request();
    } else {
      this.arm();
    }
  }

  private selfStop(reason: Exclude<StopReason, 'requested'>): void {
    this.active = false;
    this.requested = false;
    this.disarm();
    this.options.onSelfStop(reason);
  }

  private arm(): void {
    this.disarm();
    this.handle = this.options.timer.setTimeout(() => {
      this.handle = undefined;
      this.request();
    }, this.interval);
  }

  private disarm(): void {
    if (this.handle === undefined) return;
    this.options.timer.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
