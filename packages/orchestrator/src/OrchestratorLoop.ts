import {
  type AttemptSummary,
  type Clock,
  type Detector,
  LoopDetector,
  type LoopGuardError,
  RunError,
  type StateMachine,
  StorageError,
  systemClock,
} from '@loopguard/core';
import { type Logger, parseOptions, SafeEmitter, silentLogger } from '@loopguard/core/internal';
import type { SpendOptions } from '@loopguard/core/spend';
import { validateDecision } from './decision.js';
import type { ExecutionResult, TickDetails } from './executionResult.js';
import type { GuardStatisticsSource } from './guardStatistics.js';
import type { OrchestratorLoopEvents } from './orchestratorLoopEvents.js';
import { type OrchestratorLoopOptions, orchestratorLoopOptionsSchema } from './orchestratorLoopOptions.js';
import type { OrchestratorLoopStatus } from './orchestratorLoopStatus.js';
import { loadOrchestratorSpend, type OrchestratorSpend } from './orchestratorSpend.js';
import type { ActionHandler, Decision, Policy, TaskScheduler } from './ports.js';
import { runAction } from './runAction.js';
import { runTaskTick, type TaskTickContext } from './runTaskTick.js';
import { asLoopGuardError, storageErrorOf } from './tickErrors.js';
import { clampInterval, type StopReason, type TickOutcome, TickScheduler } from './tickScheduler.js';
import { systemTimer } from './timer.js';

/**
 * The orchestrator's loop with loop detection wired in (the seed's integration, steps 1–3).
 *
 * Each tick: read the state, decide, and for a `run_task` decision skip a task with an open
 * escalation (`details.skipped: 'escalated'`, until `detector.resolveEscalation()`), check the task for a loop
 * **before** executing (on a loop, apply the recovery and skip execution), execute under a timeout
 * and an abort signal, then record the attempt **after** executing with the executor's reported
 * status, blockers and completed work and the session id `session_<tickNumber>`.
 *
 * Scheduling (`start()` / `stop()`): a tick runs at once on `notify()` or a scheduler's
 * `taskQueued` event, otherwise after the interval; idle ticks back the interval off and, after
 * `maxIdleTicks` in a row, stop the loop. Ticks never overlap.
 *
 * Faults: an executor that throws, times out or returns an invalid report fails the tick (event
 * `tickFailed`, an error attempt recorded with status `blocked` and the error as its blocker) and
 * the loop goes on. A `StorageError` from the ports is emitted as `error`, logged, makes `tick()`
 * reject, and (by default) stops the scheduled loop: without storage, attempts would be lost and
 * loops would go unseen.
 *
 * @typeParam State - what the policy's `getSystemState()` returns.
 * @example
 * const loop = new OrchestratorLoop({ stateMachine, policy, executor, detectorOptions: { maxAttempts: 3 } });
 * loop.on('tickFailed', (result, error) => log.warn({ error }, 'tick failed'));
 * loop.start();
 * queue.on('taskQueued', () => loop.notify());
 * // ...
 * await loop.stop();
 */
export class OrchestratorLoop<State = unknown> extends SafeEmitter<OrchestratorLoopEvents> {
  /** The loop detector (created by the loop or injected): synchronous, or shared across hosts. */
  readonly detector: Detector;
  /** The detector's `getStatus()` as of the end of the last tick that ran a task (a shared one answers asynchronously). */
  private loopStatus: Record<string, AttemptSummary> = {};
  private readonly policy: Policy<State>;
  private readonly scheduler: TaskScheduler | undefined;
  private readonly actionHandler: ActionHandler | undefined;
  private readonly guardSource: GuardStatisticsSource | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly stopOnStorageError: boolean;
  private readonly taskTick: TaskTickContext;
  /** The spend guard while the pricing library loads (`spend` option). */
  private readonly spendLoading: Promise<OrchestratorSpend> | undefined;
  private readonly ticks: TickScheduler;
  private readonly onTaskQueued = (): void => this.notify();
  private tickCount = 0;
  private lastResult: ExecutionResult | null = null;
  private lastStopReason: StopReason | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private ticking = false;
  private currentAbort: AbortController | null = null;
  private stopping: Promise<void> | null = null;

  /**
   * @param options - see {@link OrchestratorLoopOptions}.
   * @throws ConfigurationError naming the first invalid option.
   */
  constructor(options: OrchestratorLoopOptions<State>) {
    const parsed = parseOptions(orchestratorLoopOptionsSchema, options, 'OrchestratorLoop options');
    const baseLogger = parsed.logger ?? silentLogger();
    const log = baseLogger.child({ component: 'OrchestratorLoop' });
    super(log);
    this.log = log;
    this.policy = parsed.policy as Policy<State>;
    this.scheduler = parsed.scheduler;
    this.actionHandler = parsed.actionHandler;
    this.guardSource = parsed.guardStatistics;
    this.clock = parsed.clock ?? systemClock;
    this.stopOnStorageError = parsed.stopOnStorageError;
    this.detector =
      parsed.detector ??
      new LoopDetector(parsed.stateMachine as StateMachine, {
        clock: this.clock,
        logger: baseLogger,
        ...parsed.detectorOptions,
      });
    this.spendLoading = loadOrchestratorSpend(
      parsed.spend as SpendOptions | undefined,
      parsed.stateMachine as StateMachine | undefined,
      this.clock,
    );
    this.detector.on('loopDetected', (result) => this.emit('loopDetected', result));
    this.detector.on('recoveryApplied', (outcome) => this.emit('recoveryApplied', outcome));
    this.detector.on('attemptRecorded', (attempt) => this.emit('attemptRecorded', attempt));
    this.guardSource?.on?.('guardTriggered', (trigger) => this.emit('guardTriggered', trigger));
    this.taskTick = {
      detector: this.detector,
      executor: parsed.executor,
      timer: parsed.timer ?? systemTimer,
      executorTimeout: parsed.executorTimeout,
      applyReportedStatus: parsed.applyReportedStatus,
      qualityMonitor: parsed.qualityMonitor,
      log: this.log,
      qualityReviewed: (taskId, verdict) => this.emit('qualityReviewed', taskId, verdict),
      spend: undefined,
      spendStopped: (verdict) => {
        this.log.warn({ spend: verdict.evidence }, verdict.message);
        void this.stop();
      },
      finish: (...args) => this.finish(...args),
      fail: (...args) => this.fail(...args),
    };

    const interval = clampInterval(parsed.interval);
    const maxInterval = Math.max(interval, clampInterval(parsed.maxIdleInterval));
    if (interval !== parsed.interval || maxInterval !== parsed.maxIdleInterval) {
      this.log.warn(
        {
          interval: parsed.interval,
          maxIdleInterval: parsed.maxIdleInterval,
          clamped: { interval, maxInterval },
        },
        'Tick intervals clamped to 5 s – 5 min',
      );
    }
    this.ticks = new TickScheduler(() => this.scheduledTick(), {
      interval,
      maxInterval,
      backoffFactor: parsed.idleBackoffFactor,
      maxIdleTicks: parsed.maxIdleTicks,
      timer: this.taskTick.timer,
      logger: this.log,
      onSelfStop: (reason) => this.afterSelfStop(reason),
    });
  }

  /** Whether ticks are being scheduled. */
  get running(): boolean {
    return this.ticks.running;
  }

  /**
   * Starts scheduling: a tick runs at once, then on events and intervals. Subscribes to the
   * scheduler's `taskQueued`. Does nothing when already running.
   */
  start(): void {
    if (this.ticks.running) return;
    this.scheduler?.on('taskQueued', this.onTaskQueued);
    this.log.info('Orchestrator loop started');
    this.emit('started', { at: this.clock.now() });
    this.ticks.start();
  }

  /**
   * Stops scheduling, aborts the executor of the tick in flight through its `AbortSignal`, and
   * resolves once that tick (and any tick queued by `tick()`) has finished. Emits `stopped` with
   * reason `requested` when the loop was running. Safe to call repeatedly.
   */
  stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    const wasRunning = this.ticks.running;
    this.currentAbort?.abort(new RunError('aborted', 'The orchestrator loop is stopping'));
    this.stopping = (async () => {
      try {
        this.scheduler?.off('taskQueued', this.onTaskQueued);
        await this.ticks.stop();
        await this.whenIdle();
        if (wasRunning) {
          this.lastStopReason = 'requested';
          this.log.info('Orchestrator loop stopped');
          this.emit('stopped', { at: this.clock.now(), reason: 'requested' });
        }
      } finally {
        this.stopping = null;
      }
    })();
    return this.stopping;
  }

  /**
   * A task or queue event: runs a tick at once, or once after the tick in flight (many
   * notifications during one tick give one extra tick). Ignored while stopped.
   */
  notify(): void {
    this.ticks.request();
  }

  /** Resolves when no tick is running or queued (scheduled or direct). For tests and shutdown. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const tail = this.tail;
      await this.ticks.settled();
      await tail;
      if (!this.ticks.busy && tail === this.tail) return;
    }
  }

  /**
   * Runs one tick now (after the tick in flight, if any: ticks never overlap).
   * @returns the tick's result; executor faults resolve with `success: false`.
   * @throws StorageError when a storage port fails (after emitting `error`).
   */
  tick(): Promise<ExecutionResult> {
    const run = this.tail.then(() => this.runTick());
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The loop's status, with the detector's `loopDetection` map (the seed's dashboard shape). */
  getStatus(): OrchestratorLoopStatus {
    return {
      running: this.ticks.running,
      tickCount: this.tickCount,
      ticking: this.ticking,
      lastTickAt: this.lastResult?.startedAt ?? null,
      lastResult: this.lastResult,
      lastStopReason: this.lastStopReason,
      currentInterval: this.ticks.currentInterval,
      idleTicks: this.ticks.idleTicks,
      loopDetection: this.loopStatus,
      guards: this.guardSource?.getGuardStatistics() ?? null,
      breaker: null,
    };
  }

  private async scheduledTick(): Promise<TickOutcome> {
    try {
      const result = await this.tick();
      return result.success && result.action?.type === 'idle' ? 'idle' : 'work';
    } catch (error) {
      if (error instanceof StorageError && this.stopOnStorageError) return 'halt';
      return 'work';
    }
  }

  private afterSelfStop(reason: Exclude<StopReason, 'requested'>): void {
    this.scheduler?.off('taskQueued', this.onTaskQueued);
    this.lastStopReason = reason;
    this.log.warn({ reason }, `Orchestrator loop stopped itself (${reason})`);
    this.emit('stopped', { at: this.clock.now(), reason });
  }

  private async runTick(): Promise<ExecutionResult> {
    const startedAt = this.clock.now();
    const tickNumber = ++this.tickCount;
    const sessionId = `session_${tickNumber}`;
    const controller = new AbortController();
    this.currentAbort = controller;
    this.ticking = true;
    let decision: Decision | null = null;
    try {
      const state = await this.policy.getSystemState();
      decision = validateDecision(await this.policy.decide(state));
      if (decision.type === 'idle') {
        const details: TickDetails = decision.reason === undefined ? {} : { idleReason: decision.reason };
        return this.finish(startedAt, tickNumber, decision, details);
      }
      if (decision.type === 'action') {
        await runAction(this.actionHandler, decision, controller.signal);
        return this.finish(startedAt, tickNumber, decision, {});
      }
      this.taskTick.spend ??= await this.spendLoading;
      const result = await runTaskTick(this.taskTick, decision, {
        startedAt,
        tickNumber,
        sessionId,
        signal: controller.signal,
      });
      this.loopStatus = await this.detector.getStatus();
      return result;
    } catch (error) {
      const storage = storageErrorOf(error);
      if (storage) {
        this.fail(startedAt, tickNumber, decision, storage, {});
        this.log.error(
          { err: storage, tickNumber },
          `Storage error in tick ${tickNumber}: ${storage.message}`,
        );
        this.emit('error', storage);
        throw storage;
      }
      return this.fail(startedAt, tickNumber, decision, asLoopGuardError(error), {});
    } finally {
      this.ticking = false;
      if (this.currentAbort === controller) this.currentAbort = null;
    }
  }

  private finish(
    startedAt: number,
    tickNumber: number,
    action: Decision,
    details: TickDetails,
  ): ExecutionResult {
    const result: ExecutionResult = {
      success: true,
      action,
      duration: this.clock.now() - startedAt,
      tickNumber,
      startedAt,
      details,
    };
    this.lastResult = result;
    this.log.debug({ tickNumber, action: action.type, duration: result.duration }, 'Tick completed');
    this.emit('tickCompleted', result);
    return result;
  }

  private fail(
    startedAt: number,
    tickNumber: number,
    action: Decision | null,
    error: LoopGuardError,
    details: TickDetails,
  ): ExecutionResult {
    const result: ExecutionResult = {
      success: false,
      action,
      duration: this.clock.now() - startedAt,
      tickNumber,
      startedAt,
      details: { ...details, error },
    };
    this.lastResult = result;
    this.log.warn(
      { tickNumber, code: error.code, err: error },
      `Tick ${tickNumber} failed: ${error.message}`,
    );
    this.emit('tickFailed', result, error);
    return result;
  }
}
