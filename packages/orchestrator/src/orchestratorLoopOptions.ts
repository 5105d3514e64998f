import type { Clock, Detector, LoopDetectorOptions, StateMachine } from '@loopguard/core';
import type { Logger } from '@loopguard/core/internal';
import { clockSchema, loggerSchema, portSchema, stateMachineSchema } from '@loopguard/core/internal';
import type { SpendOptions } from '@loopguard/core/spend';
import { z } from 'zod';
import type { GuardStatisticsSource } from './guardStatistics.js';
import type { ActionHandler, Executor, Policy, QualityMonitor, TaskScheduler } from './ports.js';
import { MAX_TIMER_DELAY, type Timer } from './timer.js';

/**
 * Options of {@link OrchestratorLoop}: the ports, then scheduling and fault handling.
 *
 * @example
 * new OrchestratorLoop({
 *   stateMachine,
 *   policy,
 *   executor,
 *   detectorOptions: { maxAttempts: 3, enableAutoUnblock: true },
 *   interval: 30_000,
 *   maxIdleTicks: 10,
 * });
 */
export interface OrchestratorLoopOptions<State = unknown> {
  /**
   * The core state machine: tasks, transitions, context entries (recoveries are written there).
   * Required unless a `detector` is given (a `SharedLoopDetector` brings its own storage).
   * @default undefined (the `detector`'s storage)
   */
  stateMachine?: StateMachine;
  /** Reads the system state and decides each tick. */
  policy: Policy<State>;
  /** Runs a task. */
  executor: Executor;
  /** A source of `taskQueued` events; each triggers a tick at once. @default none (interval ticks and `notify()` only) */
  scheduler?: TaskScheduler;
  /** Reviews each run after its attempt is recorded. @default none */
  qualityMonitor?: QualityMonitor;
  /** Handles `{ type: 'action' }` decisions. @default none (an action tick fails) */
  actionHandler?: ActionHandler;
  /**
   * A detector to use instead of creating one (it must write to the same state machine): a
   * `LoopDetector`, or a `SharedLoopDetector` for workers on several hosts sharing PostgreSQL (then
   * `getStatus().loopDetection` is as of the end of the last tick). Its
   * `loopDetected`, `recoveryApplied` and `attemptRecorded` events are re-emitted by the loop.
   * Mutually exclusive with `detectorOptions`.
   * @default new LoopDetector(stateMachine, { clock, logger, ...detectorOptions })
   */
  detector?: Detector;
  /** Options of the detector the loop creates (see core's `LoopDetectorOptions`). @default {} (the seed's recommended tuning) */
  detectorOptions?: LoopDetectorOptions;
  /** Where `getStatus().guards` comes from, for example an `IterationSessions` manager. @default none (`guards: null`) */
  guardStatistics?: GuardStatisticsSource;
  /** Source of time for durations and tick times. @default systemClock */
  clock?: Clock;
  /** Schedules interval ticks and executor timeouts. @default systemTimer */
  timer?: Timer;
  /** pino logger; the loop logs through `logger.child({ component: 'OrchestratorLoop' })`. @default silent */
  logger?: Logger;
  /**
   * Base interval between ticks when no event arrives, ms; clamped to 5 000 – 300 000.
   * @default 30_000
   */
  interval?: number;
  /**
   * Longest interval the idle back-off reaches, ms; clamped to 5 000 – 300 000 and to at least `interval`.
   * @default 300_000
   */
  maxIdleInterval?: number;
  /** Factor the interval is multiplied by after each idle tick (1 disables back-off). @default 2 */
  idleBackoffFactor?: number;
  /**
   * Idle ticks in a row after which the loop stops itself (event `stopped` with reason `idle`);
   * `null` never stops.
   * @default 10
   */
  maxIdleTicks?: number | null;
  /**
   * Longest executor run, ms. Past it the executor's signal is aborted, the tick fails with code
   * `timeout` and an error attempt is recorded. At most {@link MAX_TIMER_DELAY} (2^31 − 1 ms, about
   * 24.8 days, the longest delay Node's timers keep): a longer value is a ConfigurationError.
   * @default 600_000 (10 minutes)
   */
  executorTimeout?: number;
  /**
   * Apply the executor's reported status to the task in the state machine (when the task is known
   * and its status differs), in one transaction with the attempt.
   * @default true
   */
  applyReportedStatus?: boolean;
  /**
   * Stop the scheduled loop when a storage error surfaces (event `stopped` with reason
   * `storage_error`). The error is always emitted as `error` and `tick()` always rejects with it.
   * @default true
   */
  stopOnStorageError?: boolean;
  /**
   * The spend guard (docs/spend.md): `session` caps the loop's whole run, `task` each task over its
   * attempts (beside the detector's attempt budget), `warnAt`, `burnRate`, `prices`. Counts the
   * `usage` executors report with their attempts; a warning is a `spend_warning` entry for the task,
   * a stop a `spend_stop` entry that blocks the task (and, for the run's budget, stops the loop).
   * Needs `stateMachine` to record. @default undefined (no budget)
   */
  spend?: SpendOptions;
}

/** zod schema of {@link OrchestratorLoopOptions}; unknown keys are rejected so that typos surface. */
export const orchestratorLoopOptionsSchema = z
  .strictObject({
    stateMachine: stateMachineSchema.optional(),
    policy: portSchema<Policy<unknown>>(
      'must have getSystemState() and decide()',
      'getSystemState',
      'decide',
    ),
    executor: z.custom<Executor>((v) => typeof v === 'function', { message: 'must be a function' }),
    scheduler: portSchema<TaskScheduler>('must have on() and off()', 'on', 'off').optional(),
    qualityMonitor: portSchema<QualityMonitor>('must have review()', 'review').optional(),
    actionHandler: z
      .custom<ActionHandler>((v) => typeof v === 'function', { message: 'must be a function' })
      .optional(),
    detector: portSchema<Detector>(
      'must be a Detector (a LoopDetector or a SharedLoopDetector)',
      'detectLoop',
      'openEscalation',
      'applyRecovery',
      'recordAttempt',
      'recordAttemptWithTransition',
      'getStatus',
      'on',
    ).optional(),
    detectorOptions: z
      .custom<LoopDetectorOptions>((v) => v !== null && typeof v === 'object', {
        message: 'must be an object',
      })
      .optional(),
    guardStatistics: portSchema<GuardStatisticsSource>(
      'must have getGuardStatistics()',
      'getGuardStatistics',
    ).optional(),
    clock: clockSchema().optional(),
    timer: portSchema<Timer>(
      'must have setTimeout() and clearTimeout()',
      'setTimeout',
      'clearTimeout',
    ).optional(),
    logger: loggerSchema().optional(),
    interval: z.number().finite().positive().default(30_000),
    maxIdleInterval: z.number().finite().positive().default(300_000),
    idleBackoffFactor: z.number().finite().min(1).default(2),
    maxIdleTicks: z.number().int().positive().nullable().default(10),
    executorTimeout: z
      .number()
      .positive()
      .max(MAX_TIMER_DELAY, {
        message: `must be at most ${MAX_TIMER_DELAY} ms (2^31 − 1, the longest delay Node's timers keep)`,
      })
      .default(600_000),
    applyReportedStatus: z.boolean().default(true),
    stopOnStorageError: z.boolean().default(true),
    spend: z
      .custom<SpendOptions>((v) => v !== null && typeof v === 'object', { message: 'must be an object' })
      .optional(),
  })
  .refine((o) => o.stateMachine !== undefined || o.detector !== undefined, {
    message: 'is required unless a detector is given',
    path: ['stateMachine'],
  })
  .refine((o) => o.detector === undefined || o.detectorOptions === undefined, {
    message: 'cannot be combined with detector (configure the injected detector instead)',
    path: ['detectorOptions'],
  });
