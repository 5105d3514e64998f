import type { Logger } from 'pino';
import { ConfigurationError, InvalidInputError } from '../kernel/errors.js';
import { silentLogger } from '../kernel/logger.js';
import { SafeEmitter } from '../kernel/SafeEmitter.js';
import { assertNonEmptyString, describeValue } from '../kernel/validate.js';
import type { Attempt, AttemptSummary } from '../model/attempt.js';
import { newAttempt, restamped } from '../model/attemptInput.js';
import type { ContextEntry } from '../model/contextEntry.js';
import { assertTaskId } from '../model/sizeLimits.js';
import type { Task } from '../model/task.js';
import type { AsyncStorage, AsyncStoragePorts } from '../storage/asyncPorts.js';
import type { Detector } from './Detector.js';
import { logLoopDetected, logRecovery, notALoopOutcome } from './detectionReport.js';
import {
  checkRecoveryQuery,
  checkResolveInput,
  checkStatusPage,
  checkTransitionInput,
} from './detectorInput.js';
import { type DetectorSettings, detectorSettings, type ResolvedDetectorOptions } from './detectorSettings.js';
import type * as types from './detectorTypes.js';
import type { ResolveEscalationInput } from './escalation.js';
import type { LoopDetectionResult } from './loopDetection.js';
import type { LoopDetectorOptions } from './loopDetectorOptions.js';
import { runAsync } from './portCall.js';
import type { RecoveryOutcome } from './recoveryOutcome.js';
import { cycleLockKey, cycleResultOf, type TaskCycle } from './taskCycle.js';
import * as flow from './workflows.js';

/**
 * Options of {@link SharedLoopDetector}: {@link LoopDetectorOptions} without `attemptStore` and
 * `sharedStorage` (the storage brings the attempts, and they are always shared).
 * @example
 * const options: SharedLoopDetectorOptions = { maxAttempts: 3, enableAutoUnblock: true };
 */
export type SharedLoopDetectorOptions = Omit<LoopDetectorOptions, 'attemptStore' | 'sharedStorage'>;

/**
 * The asynchronous runner of the attempt-level detector, for workers that share one store
 * (PostgreSQL via `@loopguard/postgres`, or any {@link AsyncStorage}): the methods of
 * {@link LoopDetector}, returning promises, running the same workflows (`workflows.ts`).
 *
 * It keeps no attempts in memory: every judgement reads storage, so the attempts recorded by any
 * worker count for all — cross-task cycles included. Each write runs in a transaction locked on the
 * task id (`lockKey`; a cycle's recovery on the cycle's tasks), so when N workers race on one looping
 * task the loop is judged and its recovery written exactly once; the others get `applied: false`.
 * Events fire after commit.
 *
 * @example
 * const storage = await openPostgresStorage({ connectionString });
 * const detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
 * await detector.recordAttempt('T7', 'done', [], ['implemented'], 'worker-2');
 * const outcome = await detector.recoverIfLooping('T7');
 */
export class SharedLoopDetector extends SafeEmitter<types.LoopDetectorEvents> implements Detector {
  /** The options in force, defaults applied. */
  readonly options: Omit<ResolvedDetectorOptions, 'sharedStorage'>;
  private readonly settings: DetectorSettings;
  private readonly log: Logger;
  private recordsSincePrune = 0;

  /**
   * @param storage - the shared store (both ports and transactions).
   * @param options - see {@link SharedLoopDetectorOptions}.
   * @throws ConfigurationError when an option is out of range or not supported here.
   * @throws InvalidInputError when `storage` is not an {@link AsyncStorage}.
   */
  constructor(
    readonly storage: AsyncStorage,
    options: SharedLoopDetectorOptions = {},
  ) {
    const settings = detectorSettings(options, 'SharedLoopDetector');
    const log = (settings.parsed.logger ?? silentLogger()).child({ component: 'SharedLoopDetector' });
    super(log);
    for (const key of ['attemptStore', 'sharedStorage'] as const) {
      if (key in (options ?? {})) {
        throw new ConfigurationError(
          `SharedLoopDetector options: "${key}" is not an option here (the storage brings the attempts, always shared)`,
        );
      }
    }
    if (
      storage === null ||
      typeof storage !== 'object' ||
      typeof storage.transaction !== 'function' ||
      typeof storage.attempts?.listSince !== 'function' ||
      typeof storage.stateMachine?.listContextEntries !== 'function'
    ) {
      throw new InvalidInputError(`storage must implement AsyncStorage, got ${describeValue(storage)}`);
    }
    this.log = log;
    this.settings = settings;
    const { sharedStorage: _, ...resolved } = settings.options;
    this.options = Object.freeze(resolved);
  }

  /**
   * The task's open escalation (see `LoopDetector.openEscalation`), read from the shared storage.
   * @example if (await detector.openEscalation('T1')) console.log('waiting for a human');
   */
  async openEscalation(taskId: string): Promise<ContextEntry | null> {
    assertNonEmptyString(taskId, 'taskId');
    return runAsync(flow.openEscalation(taskId), this.storage);
  }

  /**
   * Records an attempt at a task (the seed's signature); stored for every worker when the promise
   * resolves. Its timestamp is never before the task's newest stored attempt (any worker's).
   * @throws InvalidInputError naming the argument; nothing is recorded then.
   */
  async recordAttempt(
    taskId: string,
    status: string,
    blockers: readonly string[],
    completedWork: readonly string[],
    sessionId = '',
  ): Promise<Attempt> {
    const checked = newAttempt(taskId, status, blockers, completedWork, sessionId, this.settings.clock.now());
    const attempt = await this.appended(checked);
    await this.afterRecord(attempt);
    return attempt;
  }

  /**
   * Records an attempt and moves the task to the attempt's status (when known and different) in one transaction.
   * @throws InvalidInputError naming the argument; nothing is written then.
   */
  async recordAttemptWithTransition(
    input: types.AttemptWithTransition,
  ): Promise<{ attempt: Attempt; task: Task | null }> {
    const { taskId, status, blockers, completedWork, sessionId, reason } = checkTransitionInput(input);
    const now = this.settings.clock.now();
    const checked = newAttempt(taskId, status, blockers, completedWork, sessionId ?? '', now);
    const recorded = await this.locked(checked.taskId, (tx) => this.stamped(checked, tx, reason));
    await this.afterRecord(recorded.attempt);
    return recorded;
  }

  /**
   * Judges the task's stored attempts inside the window (every worker's), then the cross-task
   * cycles that the newest stored attempts make.
   * @throws InvalidInputError when `taskId` is not a non-empty string.
   */
  async detectLoop(taskId: string): Promise<LoopDetectionResult> {
    assertTaskId(taskId, 'taskId');
    const now = this.settings.clock.now();
    let result = await runAsync(flow.judgeStored(taskId, now, this.settings.detection), this.storage);
    if (!result.isLooping) {
      const cycle = await this.cycleOf(taskId, now);
      if (cycle !== null) result = cycleResultOf(cycle, taskId, this.settings.detection.maxEvidence);
    }
    if (result.isLooping) this.announce(result);
    return result;
  }

  /**
   * Applies the recovery a detection recommends, as {@link LoopDetector.applyRecovery} does: the loop
   * is re-judged against storage in a transaction locked on the task (on the cycle's tasks for a
   * cycle), with the writes, so exactly one worker writes it.
   * @throws InvalidInputError when `result` is not a detection result.
   */
  async applyRecovery(result: LoopDetectionResult): Promise<RecoveryOutcome> {
    const notALoop = notALoopOutcome(result);
    if (notALoop) return notALoop;
    const outcome =
      result.loopType === 'cross_task_cycle'
        ? await this.recoverCycle(result.taskId)
        : (await this.recover(result.taskId)).outcome;
    if (outcome.applied) this.emit('recoveryApplied', outcome);
    return outcome;
  }

  /**
   * Judges the task against storage and, when it loops, writes the recovery — one transaction locked on the task.
   * @throws InvalidInputError when `taskId` is not a non-empty string.
   */
  async recoverIfLooping(taskId: string): Promise<RecoveryOutcome> {
    assertNonEmptyString(taskId, 'taskId');
    const { outcome, detection } = await this.recover(taskId);
    if (detection.isLooping) this.announce(detection);
    if (outcome.applied) this.emit('recoveryApplied', outcome);
    return outcome;
  }

  /**
   * The recoveries written so far by any worker, newest first (see `LoopDetector.listRecoveries`).
   * @example (await detector.listRecoveries({ taskId: 'T7' })).map((r) => r.action);
   */
  async listRecoveries(query: types.RecoveryQuery = {}): Promise<types.RecoveryRecord[]> {
    return runAsync(flow.listRecoveries(checkRecoveryQuery(query)), this.storage);
  }

  /**
   * Releases an escalated task (see `LoopDetector.resolveEscalation`), in a transaction locked on the task.
   * @throws InvalidInputError when the task has no open escalation or an input field is malformed.
   * @example await detector.resolveEscalation('T7', { note: 'Rotated the API token', by: 'alice' });
   */
  async resolveEscalation(taskId: string, input: ResolveEscalationInput): Promise<types.EscalationResolved> {
    assertNonEmptyString(taskId, 'taskId');
    const checked = checkResolveInput(input);
    const resolved = await this.locked(taskId, (tx) => runAsync(flow.resolveEscalation(taskId, checked), tx));
    this.log.info(
      { taskId, entryId: resolved.entry.id },
      `Escalation of ${taskId} resolved: ${checked.note}`,
    );
    this.emit('escalationResolved', resolved);
    return resolved;
  }

  /**
   * Per task with attempts inside the window: `{ attemptCount, lastAttempt }` (the seed's dashboard
   * shape); with a page query, one page of it (see `LoopDetector.getStatus`).
   * @throws InvalidInputError when the page query is malformed.
   */
  async getStatus(): Promise<Record<string, AttemptSummary>>;
  async getStatus(page: types.StatusPageQuery): Promise<types.StatusPage>;
  async getStatus(page?: types.StatusPageQuery): Promise<Record<string, AttemptSummary> | types.StatusPage> {
    const since = this.settings.clock.now() - this.options.attemptWindow;
    if (page === undefined) return runAsync(flow.status(since), this.storage);
    return runAsync(flow.statusPage(since, checkStatusPage(page)), this.storage);
  }

  /**
   * Forgets a task's attempts in storage (for every worker), for an operator who resolved a loop by hand.
   * @returns how many stored attempts were deleted.
   */
  async clearTask(taskId: string): Promise<number> {
    assertNonEmptyString(taskId, 'taskId');
    return this.locked(taskId, (tx) => tx.attempts.clear(taskId));
  }

  /**
   * Prunes one bounded batch of expired attempts; `recordAttempt` calls it every `pruneEvery` records.
   * @returns how many stored attempts were deleted.
   */
  async prune(): Promise<number> {
    this.recordsSincePrune = 0;
    const cutoff = this.settings.clock.now() - this.options.attemptWindow;
    return this.storage.attempts.prune(cutoff, this.options.pruneBatchSize);
  }

  /** Runs `fn` in a transaction locked on `key`. */
  private locked<T>(key: string, fn: (tx: AsyncStoragePorts) => Promise<T>): Promise<T> {
    return this.storage.transaction(fn, { lockKey: key });
  }

  /**
   * Records `checked`, stamped after the task's newest stored attempt, locked on the task: in one
   * step of the storage's own when it has one (`appendInOrder`), else in a transaction.
   */
  private async appended(checked: Attempt): Promise<Attempt> {
    const { storage } = this;
    if (storage.appendInOrder === undefined) {
      return (await this.locked(checked.taskId, (tx) => this.stamped(checked, tx, null))).attempt;
    }
    const since = checked.timestamp - this.options.attemptWindow;
    const timestamp = await storage.appendInOrder(checked, { since, lockKey: checked.taskId });
    return restamped(checked, timestamp);
  }

  /** Stamps `attempt` after the task's newest stored attempt and records it (with its transition when `reason` is given). */
  private async stamped(
    checked: Attempt,
    tx: AsyncStoragePorts,
    reason: string | null,
  ): Promise<{ attempt: Attempt; task: Task | null }> {
    const since = checked.timestamp - this.options.attemptWindow;
    const attempt = await runAsync(flow.monotonic(checked, since), tx);
    if (reason === null) {
      await tx.attempts.append(attempt);
      return { attempt, task: null };
    }
    return { attempt, task: await runAsync(flow.recordWithTransition(attempt, reason), tx) };
  }

  private async afterRecord(attempt: Attempt): Promise<void> {
    if (++this.recordsSincePrune >= this.options.pruneEvery) await this.prune();
    this.emit('attemptRecorded', attempt);
  }

  private announce(result: LoopDetectionResult): void {
    logLoopDetected(this.log, result);
    this.emit('loopDetected', result);
  }

  /** Judges against storage and writes the planned recovery, locked on the task; the caller emits after. */
  private async recover(taskId: string): Promise<flow.Recovery> {
    const now = this.settings.clock.now();
    const recovery = await this.locked(taskId, (tx) =>
      runAsync(flow.recoverTask(taskId, now, this.settings.detection), tx),
    );
    if (recovery.outcome.applied) logRecovery(this.log, recovery.outcome, recovery.detection);
    return recovery;
  }

  /** The cross-task cycle of the newest stored attempts that includes `taskId`, if any. */
  private async cycleOf(taskId: string, now: number): Promise<TaskCycle | null> {
    const { cycle: options } = this.settings;
    if (options === null) return null;
    return runAsync(flow.storedCycle(taskId, now - this.options.attemptWindow, options), this.storage);
  }

  /** Escalates every task of the cycle that includes `taskId`, re-judged inside a transaction locked on the cycle. */
  private async recoverCycle(taskId: string): Promise<RecoveryOutcome> {
    const { cycle: options } = this.settings;
    const now = this.settings.clock.now();
    const seen = await this.cycleOf(taskId, now);
    const gone: RecoveryOutcome = { applied: false, taskId, reason: 'The cross-task cycle no longer holds.' };
    if (seen === null || options === null) return gone;
    const since = now - this.options.attemptWindow;
    const written = await this.locked(cycleLockKey(seen.tasks), (tx) =>
      runAsync(flow.recoverStoredCycle(taskId, since, options), tx),
    );
    if (written === null) return gone;
    logRecovery(
      this.log,
      written.outcome,
      cycleResultOf(written.cycle, taskId, this.settings.detection.maxEvidence),
    );
    return written.outcome;
  }
}
