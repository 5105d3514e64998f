import { InvalidInputError } from '../kernel/errors.js';
import { describeValue } from '../kernel/validate.js';
import { GUARD_ORDER, type GuardName } from './Guard.js';
import type { GuardSet } from './GuardSet.js';
import { assertInteger } from './iterationHistory.js';

/**
 * A guard name in the project's vocabulary (a {@link GuardSet} name). Holders of a seed result map
 * its name first (`guardNameOf('loop_detection')` is `repeated_output`).
 */
export type MonitoredGuard = GuardName;

/** Guards that mean "loop detected" for the loop detection rate. */
const LOOP_GUARDS: ReadonlySet<MonitoredGuard> = new Set(['repeated_output']);

/** Seed 001's tuning metrics at one moment, for the status endpoint. */
export interface GuardMonitorSnapshot {
  /** Runs that ended: completed plus stopped by a guard. */
  runs: number;
  /** Runs that completed their task. */
  completedRuns: number;
  /** Runs stopped by a guard. */
  blockedRuns: number;
  /** Mean iterations of the completed runs ("average iterations to completion"); `null` before the first. */
  averageIterationsToCompletion: number | null;
  /** Times each guard triggered. */
  guardTriggers: Readonly<Record<string, number>>;
  /** Each guard's triggers per ended run ("guard trigger frequency"); 0 before the first run. */
  guardTriggerFrequency: Readonly<Record<string, number>>;
  /** Loops detected (repeated output) per ended run ("loop detection rate"); `null` before the first run. */
  loopDetectionRate: number | null;
  /** Iterations timed. */
  iterations: number;
  /** Mean duration of an iteration, ms ("time per iteration"); `null` before the first. */
  averageIterationMs: number | null;
}

/**
 * Accumulates seed 001's monitoring metrics: average iterations to completion, guard trigger
 * frequency, loop detection rate and time per iteration. Pure counters, no I/O: the status
 * endpoint reads {@link GuardMonitor.snapshot}.
 *
 * @example
 * const monitor = new GuardMonitor();
 * const detach = monitor.attach(guardSet); // counts every guardTriggered
 * monitor.recordIteration(42_000);
 * monitor.recordCompletion(4);
 * monitor.snapshot().averageIterationsToCompletion; // 4
 */
export class GuardMonitor {
  private completedRuns = 0;
  private completedIterations = 0;
  private readonly triggers = new Map<string, number>(GUARD_ORDER.map((name) => [name, 0]));
  private iterations = 0;
  private iterationMs = 0;

  /** Counts one finished iteration and its duration. @throws InvalidInputError on a negative or non-finite duration. */
  recordIteration(durationMs: number): void {
    if (typeof durationMs !== 'number' || !Number.isFinite(durationMs) || durationMs < 0) {
      throw new InvalidInputError(
        `durationMs must be a non-negative number, got ${describeValue(durationMs)}`,
      );
    }
    this.iterations++;
    this.iterationMs += durationMs;
  }

  /** Counts a run that completed its task after `iterations` iterations. */
  recordCompletion(iterations: number): void {
    assertInteger(iterations, 'iterations', 0);
    this.completedRuns++;
    this.completedIterations += iterations;
  }

  /** Counts a run stopped by `guard`. */
  recordTrigger(guard: MonitoredGuard): void {
    if (typeof guard !== 'string' || !GUARD_ORDER.includes(guard)) {
      throw new InvalidInputError(
        `guard must be a guard name (${GUARD_ORDER.join(', ')}), got ${describeValue(guard)}`,
      );
    }
    this.triggers.set(guard, (this.triggers.get(guard) ?? 0) + 1);
  }

  /**
   * Counts every `guardTriggered` of `guards` from now on.
   * @returns a function that stops counting.
   */
  attach(guards: GuardSet): () => void {
    const listener = (trigger: { guard: GuardName }) => this.recordTrigger(trigger.guard);
    guards.on('guardTriggered', listener);
    return () => {
      guards.off('guardTriggered', listener);
    };
  }

  /** The metrics now. */
  snapshot(): GuardMonitorSnapshot {
    const blockedRuns = [...this.triggers.values()].reduce((sum, count) => sum + count, 0);
    const runs = this.completedRuns + blockedRuns;
    const loops = [...this.triggers]
      .filter(([name]) => LOOP_GUARDS.has(name as MonitoredGuard))
      .reduce((sum, [, n]) => sum + n, 0);
    const guardTriggers = Object.fromEntries(this.triggers);
    const guardTriggerFrequency = Object.fromEntries(
      [...this.triggers].map(([name, n]) => [name, runs === 0 ? 0 : n / runs]),
    );
    return {
      runs,
      completedRuns: this.completedRuns,
      blockedRuns,
      averageIterationsToCompletion:
        this.completedRuns === 0 ? null : this.completedIterations / this.completedRuns,
      guardTriggers,
      guardTriggerFrequency,
      loopDetectionRate: runs === 0 ? null : loops / runs,
      iterations: this.iterations,
      averageIterationMs: this.iterations === 0 ? null : this.iterationMs / this.iterations,
    };
  }

  /** Forgets everything counted. */
  reset(): void {
    this.completedRuns = 0;
    this.completedIterations = 0;
    for (const name of this.triggers.keys()) this.triggers.set(name, 0);
    this.iterations = 0;
    this.iterationMs = 0;
  }
}
