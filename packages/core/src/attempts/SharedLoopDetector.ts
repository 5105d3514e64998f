import type { Logger } from 'pino';
import { type Clock, checkedClock, systemClock } from '../kernel/clock.js';
import { ConfigurationError, InvalidInputError } from '../kernel/errors.js';
import { silentLogger } from '../kernel/logger.js';
import { parseOptions } from '../kernel/parseOptions.js';
import { SafeEmitter } from '../kernel/SafeEmitter.js';
import { assertNonEmptyString, describeValue } from '../kernel/validate.js';
import type { Attempt, AttemptSummary } from '../model/attempt.js';
import { newAttempt } from '../model/attemptInput.js';
import { type ContextEntry, RECOVERY_TOPICS } from '../model/contextEntry.js';
import { assertTaskId } from '../model/sizeLimits.js';
import type { Task } from '../model/task.js';
import type { AsyncStorage, AsyncStoragePorts } from '../storage/asyncPorts.js';
import { logLoopDetected, notALoopOutcome } from './detectionReport.js';
import { ESCALATION_TOPICS, openEscalationOf } from './escalation.js';
import type { AttemptWithTransition, LoopDetectorEvents, RecoveryOutcome } from './LoopDetector.js';
import {
  type DetectionOptions,
  grantActiveOf,
  judgeAttempts,
  type LoopDetectionResult,
} from './loopDetection.js';
import { type LoopDetectorOptions, loopDetectorOptionsSchema } from './loopDetectorOptions.js';
import { planRecovery, type RecoveryPlan } from './recoveryPlan.js';

/**
 * Options of {@link SharedLoopDetector}: {@link LoopDetectorOptions} without `attemptStore` and
 * `sharedStorage` (the storage brings the attempts, and they are always shared).
 * @example
 * const options: SharedLoopDetectorOptions = { maxAttempts: 3, enableAutoUnblock: true };
 */
export type SharedLoopDetectorOptions = Omit<
  LoopDetectorOptions,
  'attemptStore' | 'sharedStorage' | 'cycleRounds' | 'maxCycleTasks'
>;

/** The task's newest recovery entry, read through `ports`. */
async function latestRecovery(ports: AsyncStoragePorts, taskId: string): Promise<ContextEntry | undefined> {
  const [latest] = await ports.stateMachine.listContextEntries({ taskId, topics: RECOVERY_TOPICS, limit: 1 });
  return latest;
}

/**
 * The asynchronous twin of {@link LoopDetector} for workers that share one store (PostgreSQL via
 * `@loopguard/postgres`, or any {@link AsyncStorage}): the same methods, returning promises, and
 * the same rules — it judges with `judgeAttempts` and plans with `planRecovery`, as the synchronous
 * detector does.
 *
 * It keeps no attempts in memory: every judgement reads the task's attempts from storage, so the
 * attempts recorded by any worker count for all. Recording, recovering and clearing a task run in a
 * transaction locked on the task id (`lockKey`), so when N workers race on one looping task the
 * loop is judged and its recovery written exactly once; the others get `applied: false`.
 * Events fire after commit.
 *
 * @example
 * const storage = await openPostgresStorage({ connectionString });
 * const detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
 * await detector.recordAttempt('T7', 'done', [], ['implemented'], 'worker-2');
 * const outcome = await detector.recoverIfLooping('T7');
 */
export class SharedLoopDetector extends SafeEmitter<LoopDetectorEvents> {
  /** The options in force, defaults applied. */
  readonly options: Readonly<Required<Omit<SharedLoopDetectorOptions, 'clock' | 'logger'>>>;
  private readonly detection: DetectionOptions;
  private readonly clock: Clock;
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
    const parsed = parseOptions(loopDetectorOptionsSchema, options, 'SharedLoopDetector options');
    const log = (parsed.logger ?? silentLogger()).child({ component: 'SharedLoopDetector' });
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
    this.clock = checkedClock(parsed.clock ?? systemClock, 'options.clock');
    this.options = Object.freeze({
      maxAttempts: parsed.maxAttempts,
      attemptWindow: parsed.attemptWindow,
      enableAutoUnblock: parsed.enableAutoUnblock,
      maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
      maxEvidence: parsed.maxEvidence,
      pruneEvery: parsed.pruneEvery,
      pruneBatchSize: parsed.pruneBatchSize,
      blockerSignatures: parsed.blockerSignatures,
      maxAttemptsPerTask:
        parsed.maxAttemptsPerTask === undefined
          ? Math.max(20, parsed.maxAttemptsBeforeForceNext)
          : parsed.maxAttemptsPerTask,
    });
    this.detection = {
      maxAttempts: parsed.maxAttempts,
      maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
      enableAutoUnblock: parsed.enableAutoUnblock,
      attemptWindow: parsed.attemptWindow,
      maxEvidence: parsed.maxEvidence,
      blockerSignatures: this.options.blockerSignatures,
      maxAttemptsPerTask: this.options.maxAttemptsPerTask,
    };
  }

  /**
   * The task's open escalation (see `LoopDetector.openEscalation`), read from the shared storage.
   * @example if (await detector.openEscalation('T1')) console.log('waiting for a human');
   */
  async openEscalation(taskId: string): Promise<ContextEntry | null> {
    assertNonEmptyString(taskId, 'taskId');
    const [newest] = await this.storage.stateMachine.listContextEntries({
      taskId,
      topics: ESCALATION_TOPICS,
      limit: 1,
    });
    return openEscalationOf(newest);
  }

  /**
   * Records an attempt at a task (the seed's signature); stored for every worker when the promise resolves.
   * @throws InvalidInputError naming the argument; nothing is recorded then.
   */
  async recordAttempt(
    taskId: string,
    status: string,
    blockers: readonly string[],
    completedWork: readonly string[],
    sessionId = '',
  ): Promise<Attempt> {
    const attempt = newAttempt(taskId, status, blockers, completedWork, sessionId, this.clock.now());
    await this.storage.transaction((tx) => tx.attempts.append(attempt), { lockKey: taskId });
    await this.afterRecord(attempt);
    return attempt;
  }

  /**
   * Records an attempt and moves the task to the attempt's status (when known and different) in one transaction.
   * @throws InvalidInputError naming the argument; nothing is written then.
   */
  async recordAttemptWithTransition(
    input: AttemptWithTransition,
  ): Promise<{ attempt: Attempt; task: Task | null }> {
    if (input === null || typeof input !== 'object') {
      throw new InvalidInputError(`input must be an object, got ${describeValue(input)}`);
    }
    assertNonEmptyString(input.reason, 'input.reason');
    const attempt = newAttempt(
      input.taskId,
      input.status,
      input.blockers,
      input.completedWork,
      input.sessionId ?? '',
      this.clock.now(),
    );
    const task = await this.storage.transaction(
      async (tx) => {
        let current = (await tx.stateMachine.getTask(attempt.taskId)) ?? null;
        if (current !== null && current.status !== attempt.status) {
          current = await tx.stateMachine.transition(attempt.taskId, attempt.status, input.reason);
        }
        await tx.attempts.append(attempt);
        return current;
      },
      { lockKey: attempt.taskId },
    );
    await this.afterRecord(attempt);
    return { attempt, task };
  }

  /**
   * Judges the task's stored attempts inside the window (every worker's).
   * @throws InvalidInputError when `taskId` is not a non-empty string.
   */
  async detectLoop(taskId: string): Promise<LoopDetectionResult> {
    assertTaskId(taskId, 'taskId');
    const now = this.clock.now();
    const [attempts, latest] = await Promise.all([
      this.storage.attempts.listSince(taskId, now - this.detection.attemptWindow),
      latestRecovery(this.storage, taskId),
    ]);
    const result = judgeAttempts({
      taskId,
      attempts,
      options: this.detection,
      grantActive: grantActiveOf(latest),
      now,
    });
    if (result.isLooping) this.announce(result);
    return result;
  }

  /**
   * Applies the recovery a detection recommends, as {@link LoopDetector.applyRecovery} does: the loop
   * is re-judged against storage in a transaction locked on the task, with the writes, so exactly one
   * worker writes it.
   * @throws InvalidInputError when `result` is not a detection result.
   */
  async applyRecovery(result: LoopDetectionResult): Promise<RecoveryOutcome> {
    const notALoop = notALoopOutcome(result);
    if (notALoop) return notALoop;
    const { outcome } = await this.recover(result.taskId);
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

  /** Per task with attempts inside the window: `{ attemptCount, lastAttempt }` (the seed's dashboard shape). */
  async getStatus(): Promise<Record<string, AttemptSummary>> {
    const since = this.clock.now() - this.options.attemptWindow;
    return Object.fromEntries(await this.storage.attempts.summarize(since));
  }

  /**
   * Forgets a task's attempts in storage (for every worker), for an operator who resolved a loop by hand.
   * @returns how many stored attempts were deleted.
   */
  async clearTask(taskId: string): Promise<number> {
    assertNonEmptyString(taskId, 'taskId');
    return this.storage.transaction((tx) => tx.attempts.clear(taskId), { lockKey: taskId });
  }

  /**
   * Prunes one bounded batch of expired attempts; `recordAttempt` calls it every `pruneEvery` records.
   * @returns how many stored attempts were deleted.
   */
  async prune(): Promise<number> {
    this.recordsSincePrune = 0;
    const cutoff = this.clock.now() - this.options.attemptWindow;
    return this.storage.attempts.prune(cutoff, this.options.pruneBatchSize);
  }

  private async afterRecord(attempt: Attempt): Promise<void> {
    if (++this.recordsSincePrune >= this.options.pruneEvery) await this.prune();
    this.emit('attemptRecorded', attempt);
  }

  private announce(result: LoopDetectionResult): void {
    logLoopDetected(this.log, result);
    this.emit('loopDetected', result);
  }

  private async recover(
    taskId: string,
  ): Promise<{ outcome: RecoveryOutcome; detection: LoopDetectionResult }> {
    const now = this.clock.now();
    const { detection, outcome } = await this.storage.transaction(
      async (tx) => {
        const [attempts, latest] = [
          await tx.attempts.listSince(taskId, now - this.detection.attemptWindow),
          await latestRecovery(tx, taskId),
        ];
        const detection = judgeAttempts({
          taskId,
          attempts,
          options: this.detection,
          grantActive: grantActiveOf(latest),
          now,
        });
        const plan = planRecovery(detection, this.detection, await tx.stateMachine.getTask(taskId));
        if (plan === null) {
          const outcome: RecoveryOutcome = {
            applied: false,
            taskId,
            reason: 'The loop no longer holds in storage (already recovered?).',
          };
          return { detection, outcome };
        }
        return { detection, outcome: await applyPlan(tx, plan) };
      },
      { lockKey: taskId },
    );
    if (outcome.applied) {
      this.log.info(
        { taskId, action: outcome.action, entryId: outcome.entry.id },
        `Loop recovery applied: ${outcome.action}`,
      );
    }
    return { outcome, detection };
  }
}

/** Writes `plan` through `tx`, in the plan's order: transitions, entries, clears. */
async function applyPlan(
  tx: AsyncStoragePorts,
  plan: RecoveryPlan,
): Promise<Extract<RecoveryOutcome, { applied: true }>> {
  let task: Task | null = (await tx.stateMachine.getTask(plan.taskId)) ?? null;
  for (const transition of plan.transitions) {
    const moved = await tx.stateMachine.transition(transition.taskId, transition.status, transition.reason);
    if (transition.taskId === plan.taskId) task = moved;
  }
  const entries: ContextEntry[] = [];
  for (const entry of plan.entries) entries.push(await tx.stateMachine.addContextEntry(entry));
  for (const taskId of plan.clearAttempts) await tx.attempts.clear(taskId);
  return {
    applied: true,
    taskId: plan.taskId,
    action: plan.action,
    loopType: plan.loopType,
    entry: entries[0] as ContextEntry,
    task,
  };
}
