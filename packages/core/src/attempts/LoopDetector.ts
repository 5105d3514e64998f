import type { Logger } from 'pino';
import { ConfigurationError } from '../kernel/errors.js';
import { silentLogger } from '../kernel/logger.js';
import { SafeEmitter } from '../kernel/SafeEmitter.js';
import { assertNonEmptyString, describeValue } from '../kernel/validate.js';
import { InMemoryAttemptStore } from '../memory/InMemoryAttemptStore.js';
import type { Attempt, AttemptSummary } from '../model/attempt.js';
import { newAttempt } from '../model/attemptInput.js';
import { nextAttemptTimestamp } from '../model/attemptOrder.js';
import type { ContextEntry } from '../model/contextEntry.js';
import { assertTaskId } from '../model/sizeLimits.js';
import type { Task } from '../model/task.js';
import { checkPort, stateMachineSchema, storageSchema } from '../storage/portSchemas.js';
import type { StateMachine } from '../storage/ports.js';
import { isStorage, type Storage, storageOf } from '../storage/storage.js';
import type { Detector } from './Detector.js';
import { logLoopDetected, notALoopOutcome } from './detectionReport.js';
import {
  checkRecoveryQuery,
  checkResolveInput,
  checkStatusPage,
  checkTransitionInput,
} from './detectorInput.js';
import { type DetectorSettings, detectorSettings, type ResolvedDetectorOptions } from './detectorSettings.js';
import type {
  AttemptWithTransition,
  EscalationResolved,
  LoopDetectorEvents,
  RecoveryQuery,
  RecoveryRecord,
  StatusPage,
  StatusPageQuery,
} from './detectorTypes.js';
import type { ResolveEscalationInput } from './escalation.js';
import { detectionResultOf, type LoopDetectionResult } from './loopDetection.js';
import type { LoopDetectorOptions } from './loopDetectorOptions.js';
import { judgeRuns } from './loopRules.js';
import { runSync, type Workflow } from './portCall.js';
import { RunCache, type TaskTrack } from './RunCache.js';
import type { RecoveryOutcome } from './recoveryOutcome.js';
import { recoverStored, recoverStoredCycle, type StoredRecoveryContext } from './storedRecovery.js';
import { cycleResultOf } from './taskCycle.js';
import * as flow from './workflows.js';

/**
 * The synchronous runner of the attempt-level detector (memory, SQLite): detects the seed's three
 * loops, a budget per task and cross-task cycles from recorded attempts, and applies their
 * recoveries through the state machine.
 *
 * Its workflows (recording, recovering, resolving, listing) are written once in `workflows.ts` and
 * shared with {@link SharedLoopDetector}; this runner answers their port calls synchronously inside
 * `storage.transaction`, and keeps a run cache per task so that `recordAttempt` and `detectLoop`
 * cost the same whatever the length of the task's history. It loads a task's attempts from storage
 * the first time it sees the task, so a restarted process resumes where it stopped. Events fire
 * after the transaction commits.
 *
 * @example
 * const detector = new LoopDetector(new InMemoryStorage(), { maxAttempts: 3, enableAutoUnblock: true });
 * detector.recordAttempt('T3.4.3', 'blocked', ['missing auth token'], [], 'session_1');
 * const result = detector.detectLoop('T3.4.3');
 * if (result.isLooping) await detector.applyRecovery(result);
 */
export class LoopDetector extends SafeEmitter<LoopDetectorEvents> implements Detector {
  /** The options in force, defaults applied. */
  readonly options: ResolvedDetectorOptions;
  /** The ports and transaction the detector reads and writes. */
  readonly storage: Storage;
  private readonly settings: DetectorSettings;
  private readonly log: Logger;
  private readonly cache: RunCache;
  private recordsSincePrune = 0;

  /**
   * @param storage - a {@link Storage} (both ports and their transaction), or, as in the seed, a
   * state machine: attempts then go to `options.attemptStore` (memory by default) and transactions
   * are the state machine's.
   * @param options - see {@link LoopDetectorOptions}.
   * @throws ConfigurationError when an option is out of range.
   */
  constructor(storage: Storage | StateMachine, options: LoopDetectorOptions = {}) {
    const settings = detectorSettings(options, 'LoopDetector');
    const { parsed } = settings;
    const log = (parsed.logger ?? silentLogger()).child({ component: 'LoopDetector' });
    super(log);
    if (isStorage(storage)) {
      checkPort(storageSchema, storage, 'storage');
      if (parsed.attemptStore !== undefined) {
        throw new ConfigurationError(
          `LoopDetector options: "attemptStore" cannot be combined with a Storage, which brings its own attempts (got ${describeValue(parsed.attemptStore)})`,
        );
      }
      this.storage = storage;
    } else {
      checkPort(stateMachineSchema, storage, 'stateMachine');
      if (parsed.sharedStorage && parsed.attemptStore === undefined) {
        throw new ConfigurationError(
          'LoopDetector options: "sharedStorage" needs an attemptStore to share (got true)',
        );
      }
      this.storage = storageOf(storage, parsed.attemptStore ?? new InMemoryAttemptStore());
    }
    this.log = log;
    this.settings = settings;
    this.options = settings.options;
    this.cache = new RunCache(this.storage, settings);
  }

  /**
   * Records an attempt at a task (the seed's signature). The arrays are copied; the caller's are
   * never changed. The attempt is in the attempt store when this returns.
   *
   * @throws InvalidInputError naming the argument; nothing is recorded then.
   */
  recordAttempt(
    taskId: string,
    status: string,
    blockers: readonly string[],
    completedWork: readonly string[],
    sessionId = '',
  ): Attempt {
    const attempt = this.newAttempt(taskId, status, blockers, completedWork, sessionId);
    const track = this.cache.trackFor(taskId, attempt.timestamp);
    this.storage.attempts.append(attempt);
    this.afterRecord(track, attempt);
    return attempt;
  }

  /**
   * Records an attempt and moves its task to the attempt's status (when the task is known and in
   * another status) in one transaction: both are stored, or neither.
   *
   * @returns the attempt, and the task after the transition (`null` when the state machine does not know it).
   * @throws InvalidInputError naming the field; nothing is written then.
   * @example
   * detector.recordAttemptWithTransition({ taskId: 'T1', status: 'blocked', blockers: ['no token'], completedWork: [], reason: 'no token' });
   */
  recordAttemptWithTransition(input: AttemptWithTransition): { attempt: Attempt; task: Task | null } {
    const { taskId, status, blockers, completedWork, sessionId, reason } = checkTransitionInput(input);
    const attempt = this.newAttempt(taskId, status, blockers, completedWork, sessionId ?? '');
    const track = this.cache.trackFor(attempt.taskId, attempt.timestamp);
    const task = this.run(flow.recordWithTransition(attempt, reason));
    this.afterRecord(track, attempt);
    return { attempt, task };
  }

  /**
   * Judges the task's attempts inside the window, then the cross-task cycles of this process's
   * newest attempts (with `sharedStorage`, of every process's newest stored attempts).
   * @throws InvalidInputError when `taskId` is not a non-empty string.
   */
  detectLoop(taskId: string): LoopDetectionResult {
    assertTaskId(taskId, 'taskId');
    const { detection } = this.settings;
    const track = this.cache.trackFor(taskId, this.settings.clock.now(), false);
    const windowCount = track.attempts.length - track.head;
    const verdict = judgeRuns(track.runs, windowCount, track.grantActive, detection);
    const cycle = verdict === null ? this.cache.cycleOf(taskId, this.settings.clock.now()) : null;
    const result =
      cycle === null
        ? detectionResultOf(taskId, track.attempts, track.head, verdict, detection.maxEvidence)
        : cycleResultOf(cycle, taskId, detection.maxEvidence);
    if (result.isLooping) this.announce(result);
    return result;
  }

  /**
   * Applies the recovery a detection recommends, through the state machine only:
   * - `force_next`: the task is marked `done`; an entry on topic `loop_recovery` tells the autopilot not to revisit it.
   * - `unblock_authority`: an entry on topic `unblock_authority` grants authority scoped to the task and its blockers.
   * - `escalate`: the task is marked `blocked`; an entry on topic `loop_escalation` gives the reason.
   *
   * The loop is re-judged against storage inside one transaction with the writes (see
   * {@link recoverIfLooping}), so when several processes detect the same loop exactly one recovery
   * is written. The task's attempts are cleared in the same transaction: a new loop needs fresh attempts.
   *
   * @throws InvalidInputError when `result` is not a detection result.
   */
  async applyRecovery(result: LoopDetectionResult): Promise<RecoveryOutcome> {
    const notALoop = notALoopOutcome(result);
    if (notALoop) return notALoop;
    const { outcome } =
      result.loopType === 'cross_task_cycle'
        ? recoverStoredCycle(this.recoveries, result.taskId)
        : recoverStored(this.recoveries, result.taskId);
    if (outcome.applied) this.emit('recoveryApplied', outcome);
    return outcome;
  }

  /**
   * Judges the task against storage and, when it is looping, writes the recovery — in one
   * transaction, so that the judgement and the writes see the same attempts. Emits `loopDetected`
   * and `recoveryApplied` after the commit.
   *
   * @returns the recovery written, or `applied: false` when the task is not looping.
   * @throws InvalidInputError when `taskId` is not a non-empty string.
   * @example
   * const outcome = detector.recoverIfLooping('T3.4.2');
   * if (outcome.applied) console.log(outcome.action, outcome.entry.topic);
   */
  recoverIfLooping(taskId: string): RecoveryOutcome {
    assertNonEmptyString(taskId, 'taskId');
    const { outcome, detection } = recoverStored(this.recoveries, taskId);
    if (detection.isLooping) this.announce(detection);
    if (outcome.applied) this.emit('recoveryApplied', outcome);
    return outcome;
  }

  /**
   * The recoveries written so far, newest first, read through the state machine (no SQL): of one task
   * (`taskId`, including cycles it was part of) or of all tasks.
   * @param query - `taskId` to filter by; `limit` caps the count. @default { limit: 100 }
   * @example detector.listRecoveries({ taskId: 'T3.4.3' }).map((r) => r.action); // ['escalate', 'unblock_authority']
   */
  listRecoveries(query: RecoveryQuery = {}): RecoveryRecord[] {
    return runSync(flow.listRecoveries(checkRecoveryQuery(query)), this.storage);
  }

  /**
   * The task's open escalation (its `loop_escalation` entry), or `null` when it has none or it was
   * resolved. An escalated task stays `blocked`: the orchestrator does not run it again, and reported
   * statuses do not overwrite it, until {@link LoopDetector.resolveEscalation} is called.
   * @example if (detector.openEscalation('T1')) console.log('waiting for a human');
   */
  openEscalation(taskId: string): ContextEntry | null {
    assertNonEmptyString(taskId, 'taskId');
    return runSync(flow.openEscalation(taskId), this.storage);
  }

  /**
   * Releases an escalated task, in one transaction: the task moves to `input.status` (default
   * `pending`; a task event with the note as its reason) and a `loop_resolution` context entry
   * records who resolved it, how, and which escalation it closes. The task's attempts are cleared,
   * so a new loop needs fresh attempts.
   *
   * @throws InvalidInputError when the task has no open escalation or an input field is malformed;
   * nothing is written then.
   * @example
   * detector.resolveEscalation('T6.2.3', { note: 'Rotated the API token', by: 'alice' });
   * detector.resolveEscalation('T6.2.3', { note: 'Known flake, run it again', resolution: 'acknowledged' });
   */
  resolveEscalation(taskId: string, input: ResolveEscalationInput): EscalationResolved {
    assertNonEmptyString(taskId, 'taskId');
    const checked = checkResolveInput(input);
    const resolved = this.run(flow.resolveEscalation(taskId, checked));
    this.cache.forget(taskId);
    this.log.info(
      { taskId, entryId: resolved.entry.id },
      `Escalation of ${taskId} resolved: ${checked.note}`,
    );
    this.emit('escalationResolved', resolved);
    return resolved;
  }

  /**
   * Per task with attempts inside the window: `{ attemptCount, lastAttempt }` (the seed's dashboard shape).
   *
   * With a page query, one page of it in task-id order, with the total number of tasks: `{ tasks,
   * total, nextCursor }`. Pass `nextCursor` back as `cursor` for the next page; it is `null` on the
   * last. On SQLite a page costs what it holds, whatever the number of tasks.
   *
   * @throws InvalidInputError when the page query is malformed.
   * @example
   * detector.getStatus(); // { 'T3.4.2': { attemptCount: 4, lastAttempt: 1760825000000 }, … }
   * const page = detector.getStatus({ limit: 100 });
   * const next = page.nextCursor && detector.getStatus({ limit: 100, cursor: page.nextCursor });
   */
  getStatus(): Record<string, AttemptSummary>;
  getStatus(page: StatusPageQuery): StatusPage;
  getStatus(page?: StatusPageQuery): Record<string, AttemptSummary> | StatusPage {
    const since = this.settings.clock.now() - this.options.attemptWindow;
    if (page === undefined) return runSync(flow.status(since), this.storage);
    return runSync(flow.statusPage(since, checkStatusPage(page)), this.storage);
  }

  /**
   * Forgets a task's attempts (in storage too), for an operator who resolved a loop by hand.
   * @returns how many stored attempts were deleted.
   */
  clearTask(taskId: string): number {
    assertNonEmptyString(taskId, 'taskId');
    const deleted = this.storage.attempts.clear(taskId);
    this.cache.forget(taskId);
    return deleted;
  }

  /**
   * Prunes one bounded batch of expired attempts from the attempt store and forgets a bounded number
   * of idle tasks from memory. `recordAttempt` calls it every `pruneEvery` records.
   * @returns how many stored attempts were deleted.
   */
  prune(): number {
    this.recordsSincePrune = 0;
    const cutoff = this.settings.clock.now() - this.options.attemptWindow;
    const deleted = this.storage.attempts.prune(cutoff, this.options.pruneBatchSize);
    this.cache.forgetIdle(cutoff);
    return deleted;
  }

  /** Runs a workflow in one storage transaction. */
  private run<T>(workflow: Workflow<T>): T {
    return this.storage.transaction((tx) => runSync(workflow, tx));
  }

  /** Validates the seed's arguments and builds the frozen attempt, stamped now (never before the task's newest attempt). */
  private newAttempt(
    taskId: string,
    status: string,
    blockers: readonly string[],
    completedWork: readonly string[],
    sessionId: string,
  ): Attempt {
    assertNonEmptyString(taskId, 'taskId');
    const now = this.settings.clock.now();
    const newest = this.cache.trackFor(taskId, now, false).attempts.at(-1)?.timestamp;
    return newAttempt(taskId, status, blockers, completedWork, sessionId, nextAttemptTimestamp(now, newest));
  }

  private afterRecord(track: TaskTrack, attempt: Attempt): void {
    this.cache.add(track, attempt);
    if (++this.recordsSincePrune >= this.options.pruneEvery) this.prune();
    this.emit('attemptRecorded', attempt);
  }

  private announce(result: LoopDetectionResult): void {
    logLoopDetected(this.log, result);
    this.emit('loopDetected', result);
  }

  /** Runs a recovery workflow against storage (see `storedRecovery.ts`). */
  private get recoveries(): StoredRecoveryContext {
    return {
      run: (workflow) => this.run(workflow),
      cache: this.cache,
      settings: this.settings,
      log: this.log,
    };
  }
}
