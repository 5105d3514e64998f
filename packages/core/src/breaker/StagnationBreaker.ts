import type { Logger } from 'pino';
import { type Clock, systemClock } from '../kernel/clock.js';
import { InvalidInputError } from '../kernel/errors.js';
import { silentLogger } from '../kernel/logger.js';
import { parseOptions } from '../kernel/parseOptions.js';
import { SafeEmitter } from '../kernel/SafeEmitter.js';
import {
  type ResolvedStagnationBreakerOptions,
  type StagnationBreakerOptions,
  stagnationBreakerOptionsSchema,
} from './breakerOptions.js';
import { type BreakerSnapshot, parseBreakerSnapshot } from './breakerSnapshot.js';
import type {
  BreakerState,
  BreakerTransition,
  BreakerVerdict,
  IterationObservation,
  IterationProgress,
  SignalReading,
} from './breakerTypes.js';
import { CompletionWithoutEvidenceSignal } from './CompletionWithoutEvidenceSignal.js';
import { NoFileChangesSignal } from './NoFileChangesSignal.js';
import { PermissionDeniedSignal } from './PermissionDeniedSignal.js';
import { SameErrorSignal } from './SameErrorSignal.js';
import type { StagnationSignal } from './StagnationSignal.js';
import { StepLoopStoppedSignal } from './StepLoopStoppedSignal.js';
import { TaskNotProgressingSignal } from './TaskNotProgressingSignal.js';
import { TestOnlySignal } from './TestOnlySignal.js';

/** Events of {@link StagnationBreaker} (eventemitter3). */
export interface StagnationBreakerEvents {
  /** The state changed (persist the transition as a row). */
  breakerStateChanged: [transition: BreakerTransition];
}

/**
 * The stagnation circuit breaker of seed 003 for a loop that runs an agent command again and
 * again. Each finished iteration is {@link record}ed with its observation; five signals (no file
 * changes, same error, task not progressing, completion without evidence, a stop by the step-level detector) keep streaks, and the
 * breaker opens when one reaches its threshold. After `cooldownMs` an `OPEN` breaker becomes
 * `HALF_OPEN` (or `CLOSED` with `autoReset`): a trial iteration with progress closes it, a stalled
 * one opens it again. Infrastructure iterations (rate limits, 5xx, network timeouts) are never
 * judged. No I/O: the clock is injected and transitions are events to persist.
 *
 * @example
 * const breaker = new StagnationBreaker({ runId: 'run-1', clock });
 * breaker.on('breakerStateChanged', (t) => store.appendTransition(t));
 * const verdict = breaker.record({ iteration: 1, filesChanged: 0, output });
 * if (verdict.tripped) act(verdict.reason);
 */
export class StagnationBreaker extends SafeEmitter<StagnationBreakerEvents> {
  /** The options in force, defaults applied. */
  readonly options: Readonly<Omit<ResolvedStagnationBreakerOptions, 'snapshot' | 'clock' | 'logger'>>;
  /** The run the breaker belongs to. */
  readonly runId: string;
  /**
   * Why the persisted state was not used (`no persisted breaker state was found`, `… is corrupt …`),
   * when a `snapshot` option was given and could not be trusted; else `null`.
   */
  readonly restoreNotice: string | null;
  private readonly signals: readonly StagnationSignal[];
  private readonly clock: Clock;
  private readonly logger: Logger;
  private current: BreakerState = 'CLOSED';
  private openedAt: number | null = null;
  private openCount = 0;
  private lastReason: string | null = null;

  /** @throws ConfigurationError naming the first invalid option. */
  constructor(options: StagnationBreakerOptions) {
    const resolved = parseOptions(stagnationBreakerOptionsSchema, options, 'StagnationBreaker options');
    const logger = (resolved.logger ?? silentLogger()).child({ component: 'StagnationBreaker' });
    super(logger);
    const { snapshot, clock, logger: _logger, ...rest } = resolved;
    this.options = Object.freeze(rest);
    this.runId = resolved.runId;
    this.clock = clock ?? systemClock;
    this.logger = logger;
    this.signals = Object.freeze([
      new StepLoopStoppedSignal(rest.stagnationThreshold),
      new NoFileChangesSignal(rest.stagnationThreshold),
      new SameErrorSignal(rest.sameErrorThreshold),
      new TaskNotProgressingSignal(rest.taskThreshold),
      new CompletionWithoutEvidenceSignal(rest.stagnationThreshold),
      new PermissionDeniedSignal(rest.permissionDenialThreshold),
      new TestOnlySignal(rest.stagnationThreshold, rest.testOnlyShare, rest.testOnlyWindow),
    ]);
    this.restoreNotice = 'snapshot' in options ? this.restore(snapshot) : null;
  }

  /** The state now: an `OPEN` breaker whose cooldown has elapsed moves to `HALF_OPEN` (or `CLOSED`). */
  get state(): BreakerState {
    this.applyCooldown();
    return this.current;
  }

  /** How many times the breaker opened in this run; a reset does not lower it. */
  get opens(): number {
    return this.openCount;
  }

  /** When it last opened, epoch ms, or `null`. */
  get lastOpenedAt(): number | null {
    return this.openedAt;
  }

  /** Milliseconds until an `OPEN` breaker lets a trial iteration through (0 when not `OPEN`). */
  cooldownRemainingMs(): number {
    if (this.state !== 'OPEN' || this.openedAt === null) return 0;
    const now = this.clock.now();
    // an opened_at in the future (clock skew) keeps the whole cooldown ahead
    if (this.openedAt > now) return this.options.cooldownMs + (this.openedAt - now);
    return Math.max(0, this.openedAt + this.options.cooldownMs - now);
  }

  /**
   * Judges one finished iteration: updates the signals' streaks and the state.
   * @throws InvalidInputError when `observation.iteration` is not a positive integer.
   */
  record(observation: IterationObservation): BreakerVerdict {
    if (!Number.isInteger(observation?.iteration) || observation.iteration < 1) {
      throw new InvalidInputError(
        `StagnationBreaker.record: observation.iteration must be a positive integer, got ${String(observation?.iteration)}`,
      );
    }
    const before = this.state;
    if (observation.infrastructure !== null && observation.infrastructure !== undefined) {
      return { state: before, tripped: false, progress: 'infrastructure', readings: [], reason: null };
    }
    const readings = this.signals.map((signal) => signal.observe(observation));
    const tripping = readings.find((r) => r.status === 'stalled' && r.streak >= r.threshold);
    const progress = progressOf(readings, tripping !== undefined);
    if (tripping !== undefined) {
      const reason = `${tripping.signal}: ${tripping.detail} (${tripping.streak} in a row, threshold ${tripping.threshold})`;
      this.open(reason);
      return { state: 'OPEN', tripped: before !== 'OPEN', progress, readings, reason };
    }
    if (before !== 'CLOSED' && progress === 'progress')
      this.move('CLOSED', `progress in iteration ${observation.iteration}`);
    if (before !== 'CLOSED' && progress === 'stalled') {
      const reason = `no progress in trial iteration ${observation.iteration}`;
      this.open(reason);
      return { state: 'OPEN', tripped: before !== 'OPEN', progress, readings, reason };
    }
    return { state: this.current, tripped: false, progress, readings, reason: null };
  }

  /** Opens the breaker from outside the signals (a guard that blocked, a stop inside an iteration); no-op when `OPEN`. */
  trip(reason: string): void {
    this.open(reason);
  }

  /** Closes the breaker by hand and forgets the streaks; the count of opens is kept. */
  reset(reason = 'manual reset'): void {
    for (const signal of this.signals) signal.reset();
    this.openedAt = null;
    if (this.current !== 'CLOSED') this.move('CLOSED', reason);
  }

  /** The state to persist, for {@link StagnationBreakerOptions.snapshot}. */
  snapshot(): BreakerSnapshot {
    this.applyCooldown();
    const signals: BreakerSnapshot['signals'] = {};
    for (const signal of this.signals) signals[signal.name] = signal.snapshot();
    return {
      state: this.current,
      openedAt: this.openedAt,
      opens: this.openCount,
      reason: this.lastReason,
      signals,
    };
  }

  private open(reason: string): void {
    for (const signal of this.signals) signal.reset(); // a new stagnation needs fresh evidence
    if (this.current === 'OPEN') return; // already open: the cooldown keeps running
    this.openCount += 1;
    this.openedAt = this.clock.now();
    this.move('OPEN', reason);
  }

  private applyCooldown(): void {
    if (this.current !== 'OPEN' || this.openedAt === null) return;
    const now = this.clock.now();
    if (this.openedAt > now || now - this.openedAt < this.options.cooldownMs) return;
    if (this.options.autoReset) this.move('CLOSED', 'cooldown elapsed: auto-reset');
    else this.move('HALF_OPEN', 'cooldown elapsed: trial iterations');
  }

  private move(to: BreakerState, reason: string): void {
    const transition: BreakerTransition = {
      runId: this.runId,
      at: this.clock.now(),
      from: this.current,
      to,
      reason,
    };
    this.current = to;
    this.lastReason = reason;
    this.logger.info(transition, `breaker ${transition.from} -> ${to}: ${reason}`);
    this.emit('breakerStateChanged', transition);
  }

  private restore(value: unknown): string | null {
    const { snapshot, problem } = parseBreakerSnapshot(value);
    if (snapshot === null) {
      this.logger.warn({ runId: this.runId }, `${problem}; starting CLOSED`);
      return `${problem}; starting CLOSED`;
    }
    this.current = snapshot.state;
    this.openedAt = snapshot.openedAt;
    this.openCount = snapshot.opens;
    this.lastReason = snapshot.reason;
    if (this.current === 'OPEN' && this.openedAt === null) this.openedAt = this.clock.now();
    for (const signal of this.signals) {
      const saved = snapshot.signals[signal.name];
      if (saved !== undefined) signal.restore(saved);
    }
    return null;
  }
}

function progressOf(readings: readonly SignalReading[], tripped: boolean): IterationProgress {
  const stalled = readings.some((r) => r.status === 'stalled');
  if (!tripped && readings.some((r) => r.status === 'progress')) return 'progress';
  if (stalled) return 'stalled';
  return 'unknown';
}
