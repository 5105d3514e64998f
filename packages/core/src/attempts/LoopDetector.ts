import type { Logger } from 'pino';
import { z } from 'zod';
import { parseInput } from '../guards/parseInput.js';
import { type Clock, checkedClock, systemClock } from '../kernel/clock.js';
import { ConfigurationError, InvalidInputError } from '../kernel/errors.js';
import { silentLogger } from '../kernel/logger.js';
import { parseOptions } from '../kernel/parseOptions.js';
import { SafeEmitter } from '../kernel/SafeEmitter.js';
import { assertNonEmptyString, describeValue } from '../kernel/validate.js';
import { InMemoryAttemptStore } from '../memory/InMemoryAttemptStore.js';
import type { Attempt, AttemptSummary } from '../model/attempt.js';
import { newAttempt } from '../model/attemptInput.js';
import { nextAttemptTimestamp } from '../model/attemptOrder.js';
import { type ContextEntry, RECOVERY_TOPICS } from '../model/contextEntry.js';
import { assertTaskId } from '../model/sizeLimits.js';
import { assertTaskStatus, type Task, type TaskStatus } from '../model/task.js';
import { stateMachineSchema, storageSchema } from '../storage/portSchemas.js';
import type { StateMachine } from '../storage/ports.js';
import { isStorage, type Storage, type StoragePorts, storageOf } from '../storage/storage.js';
import { logLoopDetected, notALoopOutcome } from './detectionReport.js';
import {
  ESCALATION_TOPICS,
  openEscalationOf,
  planResolution,
  type ResolveEscalationInput,
} from './escalation.js';
import {
  type DetectionOptions,
  detectionResultOf,
  grantActiveOf,
  judgeAttempts,
  type LoopDetectionResult,
} from './loopDetection.js';
import { type LoopDetectorOptions, loopDetectorOptionsSchema } from './loopDetectorOptions.js';
import { judgeRuns, type RunState, runsOf, stepRuns } from './loopRules.js';
import type { LoopType, Recommendation } from './loopVerdict.js';
import type { RecoveryOutcome } from './recoveryOutcome.js';
import { planRecovery, type RecoveryPlan } from './recoveryPlan.js';
import { findTaskCycle, planCycleRecovery, type TaskCycleOptions } from './taskCycle.js';

/** One recovery in {@link LoopDetector.listRecoveries}: its context entry, read back. */
export interface RecoveryRecord {
  /** The context entry's id. */
  id: string;
  /** When it was written, epoch ms. */
  timestamp: number;
  /** The recovery: `force_next`, `unblock_authority` or `escalate`. */
  action: Recommendation;
  /** The loop it recovered from (`cross_task_cycle` for a cycle). */
  loopType: LoopType;
  /** The tasks it concerns (one, or the tasks of a cycle). */
  tasks: string[];
  /** The directive written for the autopilot. */
  content: string;
  /** The full entry, with the evidence in `metadata`. */
  entry: ContextEntry;
}

const ACTION_OF: Record<string, Recommendation> = {
  loop_recovery: 'force_next',
  unblock_authority: 'unblock_authority',
  loop_escalation: 'escalate',
};

/** What {@link LoopDetector.resolveEscalation} returns. */
export interface EscalationResolved {
  /** The task released. */
  taskId: string;
  /** The escalation that was open. */
  escalation: ContextEntry;
  /** The `loop_resolution` entry written. */
  entry: ContextEntry;
  /** The task after its transition; `null` when the state machine does not know the task. */
  task: Task | null;
}

export type { LoopDetectionResult } from './loopDetection.js';

export type { RecoveryOutcome } from './recoveryOutcome.js';

/** Events of {@link LoopDetector} (eventemitter3). */
export interface LoopDetectorEvents {
  /** An attempt was stored. */
  attemptRecorded: [attempt: Attempt];
  /** `detectLoop` found a loop. */
  loopDetected: [result: LoopDetectionResult];
  /** `applyRecovery` wrote a recovery. */
  recoveryApplied: [outcome: Extract<RecoveryOutcome, { applied: true }>];
  /** `resolveEscalation` released an escalated task. */
  escalationResolved: [resolution: EscalationResolved];
}

/** The detector's view of one task: the attempts inside the window and the runs they end with. */
interface TaskTrack {
  taskId: string;
  attempts: Attempt[];
  /** Index of the oldest attempt still inside the window. */
  head: number;
  /** Timestamp of `attempts[head]` (Infinity when none), kept so that the window check touches no attempt. */
  oldest: number;
  runs: RunState | undefined;
  grantActive: boolean;
}

/** The per-task budget when none is configured (see `maxAttemptsPerTask`). */
const DEFAULT_ATTEMPTS_PER_TASK = 20;

/**
 * Which page of {@link LoopDetector.getStatus} to read.
 * @example { limit: 100 } // then { limit: 100, cursor: page.nextCursor }
 */
export interface StatusPageQuery {
  /** Most tasks on the page. Integer 1..10,000. */
  limit: number;
  /** The previous page's `nextCursor`; absent for the first page. */
  cursor?: string;
}

/**
 * One page of {@link LoopDetector.getStatus}.
 * @example { tasks: { T1: { attemptCount: 3, lastAttempt: 1760825000000 } }, total: 1, nextCursor: null }
 */
export interface StatusPage {
  /** The page's tasks, in task-id order, in the seed's dashboard shape. */
  tasks: Record<string, AttemptSummary>;
  /** Tasks with attempts inside the window, on all pages. */
  total: number;
  /** The cursor of the next page; `null` on the last page. */
  nextCursor: string | null;
}

const statusPageQuerySchema = z.strictObject({
  limit: z.number().int().min(1).max(10_000),
  cursor: z.string().min(1).optional(),
});

/**
 * One attempt with a status transition of its task, recorded together by
 * {@link LoopDetector.recordAttemptWithTransition}.
 * @example { taskId: 'T1', status: 'blocked', blockers: ['no token'], completedWork: [], sessionId: 's1', reason: 'no token' }
 */
export interface AttemptWithTransition {
  /** The task attempted. */
  taskId: string;
  /** The attempt's status; the task moves to it when it is known and in another status. */
  status: TaskStatus;
  /** Blockers hit. */
  blockers: readonly string[];
  /** Work completed. */
  completedWork: readonly string[];
  /** The session that made the attempt. @default '' */
  sessionId?: string;
  /** The reason recorded with the transition. */
  reason: string;
}

/**
 * Detects the seed's three loops from recorded attempts and applies their recoveries through the
 * state machine.
 *
 * The detector is a thin shell over pure rules: {@link judgeAttempts} judges a task from its stored
 * attempts and {@link planRecovery} plans a recovery's writes; the detector reads storage, calls
 * them and writes the plan inside one `storage.transaction`. Events fire and pruning runs after the
 * transaction commits.
 *
 * Per call, `recordAttempt` and `detectLoop` cost the same whatever the length of the task's
 * history: run lengths are kept incrementally. The detector loads a task's attempts from storage
 * the first time it sees the task, so a restarted process resumes where it stopped.
 *
 * @example
 * const detector = new LoopDetector(new InMemoryStorage(), { maxAttempts: 3, enableAutoUnblock: true });
 * detector.recordAttempt('T3.4.3', 'blocked', ['missing auth token'], [], 'session_1');
 * const result = detector.detectLoop('T3.4.3');
 * if (result.isLooping) await detector.applyRecovery(result);
 */
export class LoopDetector extends SafeEmitter<LoopDetectorEvents> {
  /** The options in force, defaults applied. */
  readonly options: Readonly<Required<Omit<LoopDetectorOptions, 'attemptStore' | 'clock' | 'logger'>>>;
  /** The ports and transaction the detector reads and writes. */
  readonly storage: Storage;
  private readonly detection: DetectionOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly tracks = new Map<string, TaskTrack>();
  /** The track used last: `detectLoop` right after `recordAttempt` of the same task skips a lookup. */
  private lastTrack: TaskTrack | undefined;
  private sweep: Iterator<[string, TaskTrack]> | undefined;
  private recordsSincePrune = 0;
  /** The newest attempts across tasks (at most `maxCycleTasks × cycleRounds`), for cross-task cycles. */
  private recent: Attempt[] = [];
  private readonly cycleOptions: TaskCycleOptions | null;

  /**
   * @param storage - a {@link Storage} (both ports and their transaction), or, as in the seed, a
   * state machine: attempts then go to `options.attemptStore` (memory by default) and transactions
   * are the state machine's.
   * @param options - see {@link LoopDetectorOptions}.
   * @throws ConfigurationError when an option is out of range.
   */
  constructor(storage: Storage | StateMachine, options: LoopDetectorOptions = {}) {
    const parsed = parseOptions(loopDetectorOptionsSchema, options, 'LoopDetector options');
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
    this.clock = checkedClock(parsed.clock ?? systemClock, 'options.clock');
    const budget =
      parsed.maxAttemptsPerTask === undefined
        ? Math.max(DEFAULT_ATTEMPTS_PER_TASK, parsed.maxAttemptsBeforeForceNext)
        : parsed.maxAttemptsPerTask;
    this.options = Object.freeze({
      maxAttempts: parsed.maxAttempts,
      attemptWindow: parsed.attemptWindow,
      enableAutoUnblock: parsed.enableAutoUnblock,
      maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
      maxEvidence: parsed.maxEvidence,
      pruneEvery: parsed.pruneEvery,
      pruneBatchSize: parsed.pruneBatchSize,
      sharedStorage: parsed.sharedStorage,
      cycleRounds: parsed.cycleRounds,
      maxCycleTasks: parsed.maxCycleTasks,
      blockerSignatures: parsed.blockerSignatures,
      maxAttemptsPerTask: budget,
    });
    this.cycleOptions =
      parsed.cycleRounds === null
        ? null
        : {
            cycleRounds: parsed.cycleRounds,
            maxCycleTasks: parsed.maxCycleTasks,
            blockerSignatures: parsed.blockerSignatures,
          };
    this.detection = {
      maxAttempts: parsed.maxAttempts,
      maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
      enableAutoUnblock: parsed.enableAutoUnblock,
      attemptWindow: parsed.attemptWindow,
      maxEvidence: parsed.maxEvidence,
      blockerSignatures: parsed.blockerSignatures,
      maxAttemptsPerTask: budget,
    };
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
    const track = this.trackFor(taskId, attempt.timestamp);
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
    if (input === null || typeof input !== 'object') {
      throw new InvalidInputError(`input must be an object, got ${describeValue(input)}`);
    }
    assertNonEmptyString(input.reason, 'input.reason');
    const attempt = this.newAttempt(
      input.taskId,
      input.status,
      input.blockers,
      input.completedWork,
      input.sessionId ?? '',
    );
    const track = this.trackFor(attempt.taskId, attempt.timestamp);
    const task = this.storage.transaction((tx) => {
      let current = tx.stateMachine.getTask(attempt.taskId) ?? null;
      if (current !== null && current.status !== attempt.status) {
        current = tx.stateMachine.transition(attempt.taskId, attempt.status, input.reason);
      }
      tx.attempts.append(attempt);
      return current;
    });
    this.afterRecord(track, attempt);
    return { attempt, task };
  }

  /**
   * Judges the task's attempts inside the window.
   * @throws InvalidInputError when `taskId` is not a non-empty string.
   */
  detectLoop(taskId: string): LoopDetectionResult {
    assertTaskId(taskId, 'taskId');
    const track = this.trackFor(taskId, this.clock.now(), false);
    const windowCount = track.attempts.length - track.head;
    const verdict = judgeRuns(track.runs, windowCount, track.grantActive, this.detection);
    const result =
      verdict === null
        ? (this.cycleResult(taskId) ??
          detectionResultOf(taskId, track.attempts, track.head, null, this.detection.maxEvidence))
        : detectionResultOf(taskId, track.attempts, track.head, verdict, this.detection.maxEvidence);
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
      result.loopType === 'cross_task_cycle' ? this.recoverCycle(result.taskId) : this.recover(result.taskId);
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
    const { outcome, detection } = this.recover(taskId);
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
  listRecoveries(query: { taskId?: string; limit?: number } = {}): RecoveryRecord[] {
    if (query === null || typeof query !== 'object') {
      throw new InvalidInputError(`query must be an object, got ${describeValue(query)}`);
    }
    if (query.taskId !== undefined) assertNonEmptyString(query.taskId, 'query.taskId');
    const limit = query.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidInputError(
        `query.limit must be a positive integer, got ${describeValue(query.limit)}`,
      );
    }
    const entries = this.storage.stateMachine.listContextEntries({
      topics: RECOVERY_TOPICS,
      limit,
      ...(query.taskId === undefined ? {} : { taskId: query.taskId }),
    });
    return entries.map((entry) => ({
      id: entry.id,
      timestamp: entry.timestamp,
      action: ACTION_OF[entry.topic] as Recommendation,
      loopType: entry.metadata.loopType as LoopType,
      tasks: [...entry.relatedTasks],
      content: entry.content,
      entry,
    }));
  }

  /**
   * The task's open escalation (its `loop_escalation` entry), or `null` when it has none or it was
   * resolved. An escalated task stays `blocked`: the orchestrator does not run it again, and reported
   * statuses do not overwrite it, until {@link LoopDetector.resolveEscalation} is called.
   * @example if (detector.openEscalation('T1')) console.log('waiting for a human');
   */
  openEscalation(taskId: string): ContextEntry | null {
    assertNonEmptyString(taskId, 'taskId');
    return openEscalationIn(this.storage, taskId);
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
    if (input === null || typeof input !== 'object') {
      throw new InvalidInputError(`input must be an object with a note, got ${describeValue(input)}`);
    }
    const checked: ResolveEscalationInput = { note: input.note };
    assertNonEmptyString(checked.note, 'input.note');
    if (input.resolution !== undefined) {
      if (input.resolution !== 'resolved' && input.resolution !== 'acknowledged') {
        throw new InvalidInputError(
          `input.resolution must be 'resolved' or 'acknowledged', got ${describeValue(input.resolution)}`,
        );
      }
      checked.resolution = input.resolution;
    }
    if (input.status !== undefined) {
      assertTaskStatus(input.status, 'input.status');
      checked.status = input.status;
    }
    if (input.by !== undefined) {
      assertNonEmptyString(input.by, 'input.by');
      checked.by = input.by;
    }
    const resolved = this.storage.transaction((tx): EscalationResolved => {
      const escalation = openEscalationIn(tx, taskId);
      if (escalation === null) {
        throw new InvalidInputError(`taskId ${JSON.stringify(taskId)} has no open escalation to resolve`);
      }
      const known = tx.stateMachine.getTask(taskId);
      const plan = planResolution(taskId, escalation, checked, known);
      let task: Task | null = known ?? null;
      for (const t of plan.transitions) task = tx.stateMachine.transition(t.taskId, t.status, t.reason);
      const entry = tx.stateMachine.addContextEntry(plan.entry);
      tx.attempts.clear(taskId);
      return { taskId, escalation, entry, task };
    });
    this.forget(taskId);
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
    const since = this.clock.now() - this.options.attemptWindow;
    if (page === undefined) return Object.fromEntries(this.storage.attempts.summarize(since));
    const { limit, cursor } = parseInput(statusPageQuerySchema, page, 'page');
    const result = this.storage.attempts.summarizePage(
      since,
      cursor === undefined ? { limit } : { limit, cursor },
    );
    return { tasks: Object.fromEntries(result.tasks), total: result.total, nextCursor: result.nextCursor };
  }

  /**
   * Forgets a task's attempts (in storage too), for an operator who resolved a loop by hand.
   * @returns how many stored attempts were deleted.
   */
  clearTask(taskId: string): number {
    assertNonEmptyString(taskId, 'taskId');
    const deleted = this.storage.attempts.clear(taskId);
    this.forget(taskId);
    return deleted;
  }

  /**
   * Prunes one bounded batch of expired attempts from the attempt store and forgets a bounded number
   * of idle tasks from memory. `recordAttempt` calls it every `pruneEvery` records.
   * @returns how many stored attempts were deleted.
   */
  prune(): number {
    this.recordsSincePrune = 0;
    const cutoff = this.clock.now() - this.options.attemptWindow;
    const deleted = this.storage.attempts.prune(cutoff, this.options.pruneBatchSize);
    for (let i = 0; i < 64; i++) {
      this.sweep ??= this.tracks.entries();
      const next = this.sweep.next();
      if (next.done) {
        this.sweep = undefined;
        break;
      }
      const [taskId, track] = next.value;
      const newest = track.attempts[track.attempts.length - 1];
      if (!track.grantActive && (newest === undefined || newest.timestamp < cutoff)) this.forget(taskId);
    }
    return deleted;
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
    const now = this.clock.now();
    const newest = this.trackFor(taskId, now, false).attempts.at(-1)?.timestamp;
    return newAttempt(taskId, status, blockers, completedWork, sessionId, nextAttemptTimestamp(now, newest));
  }

  private afterRecord(track: TaskTrack, attempt: Attempt): void {
    if (track.attempts.push(attempt) - track.head === 1) track.oldest = attempt.timestamp;
    track.runs = stepRuns(track.runs, attempt, this.options.blockerSignatures);
    if (this.cycleOptions !== null) {
      this.recent.push(attempt);
      const keep = this.cycleOptions.cycleRounds * this.cycleOptions.maxCycleTasks;
      if (this.recent.length > keep) this.recent.splice(0, this.recent.length - keep);
    }
    if (++this.recordsSincePrune >= this.options.pruneEvery) this.prune();
    this.emit('attemptRecorded', attempt);
  }

  private announce(result: LoopDetectionResult): void {
    logLoopDetected(this.log, result);
    this.emit('loopDetected', result);
  }

  /** Judges against storage and writes the planned recovery in one transaction; the caller emits after. */
  private recover(taskId: string): { outcome: RecoveryOutcome; detection: LoopDetectionResult } {
    const now = this.clock.now();
    const { detection, outcome } = this.storage.transaction((tx) => {
      const detection = judgeAttempts({
        taskId,
        attempts: tx.attempts.listSince(taskId, now - this.detection.attemptWindow),
        options: this.detection,
        grantActive: grantActiveIn(tx, taskId),
        now,
      });
      const plan = planRecovery(detection, this.detection, tx.stateMachine.getTask(taskId));
      if (plan === null) {
        const outcome: RecoveryOutcome = {
          applied: false,
          taskId,
          reason: 'The loop no longer holds in storage (already recovered?).',
        };
        return { detection, outcome };
      }
      return { detection, outcome: applyPlan(tx, plan) };
    });

    this.forget(taskId);
    if (!outcome.applied) return { outcome, detection };
    this.tracks.set(taskId, {
      taskId,
      attempts: [],
      head: 0,
      oldest: Number.POSITIVE_INFINITY,
      runs: undefined,
      grantActive: outcome.action === 'unblock_authority',
    });
    if (outcome.action === 'unblock_authority') {
      this.log.info({ taskId, blockers: detection.blockers }, `Granting unblock authority for ${taskId}`);
    } else if (outcome.action === 'escalate') {
      this.log.warn(
        { taskId, reason: detection.reason },
        `Escalating ${taskId} to a human: ${detection.reason}`,
      );
    }
    this.log.info(
      { taskId, action: outcome.action, entryId: outcome.entry.id },
      `Loop recovery applied: ${outcome.action}`,
    );
    return { outcome, detection };
  }

  /** The cross-task cycle that includes `taskId`, as a detection result; `null` when there is none. */
  private cycleResult(taskId: string): LoopDetectionResult | null {
    const cycle = this.currentCycle();
    if (cycle === null || !cycle.tasks.includes(taskId)) return null;
    const path = [...cycle.tasks, cycle.tasks[0]].join(' → ');
    return {
      taskId,
      isLooping: true,
      loopType: 'cross_task_cycle',
      attemptCount: cycle.evidence.length,
      recommendation: 'escalate',
      blockers: [],
      reason: `Cross-task cycle ${path} for ${cycle.rounds} rounds without progress.`,
      evidence: cycle.evidence.slice(-this.detection.maxEvidence),
      cycleTasks: cycle.tasks,
    };
  }

  private currentCycle() {
    if (this.cycleOptions === null) return null;
    const since = this.clock.now() - this.options.attemptWindow;
    return findTaskCycle(
      this.recent.filter((a) => a.timestamp >= since),
      this.cycleOptions,
    );
  }

  /** Escalates every task of the cycle that includes `taskId`, in one transaction. */
  private recoverCycle(taskId: string): { outcome: RecoveryOutcome } {
    const cycle = this.currentCycle();
    if (cycle === null || !cycle.tasks.includes(taskId) || this.cycleOptions === null) {
      return {
        outcome: { applied: false, taskId, reason: 'The cross-task cycle no longer holds.' },
      };
    }
    const options = this.cycleOptions;
    const outcome = this.storage.transaction((tx): Extract<RecoveryOutcome, { applied: true }> => {
      const plan = planCycleRecovery(cycle, options, (id) => tx.stateMachine.getTask(id));
      let task: Task | null = tx.stateMachine.getTask(taskId) ?? null;
      for (const t of plan.transitions) {
        const moved = tx.stateMachine.transition(t.taskId, t.status, t.reason);
        if (t.taskId === taskId) task = moved;
      }
      const entry = tx.stateMachine.addContextEntry(plan.entry);
      for (const id of plan.clearAttempts) tx.attempts.clear(id);
      return { applied: true, taskId, action: 'escalate', loopType: 'cross_task_cycle', entry, task };
    });
    for (const id of cycle.tasks) this.forget(id);
    this.log.warn(
      { taskId, tasks: cycle.tasks, entryId: outcome.entry.id },
      `Escalating the cross-task cycle ${cycle.tasks.join(' → ')} to a human`,
    );
    return { outcome };
  }

  /**
   * The task's track, loaded from storage when new (or on every call with `sharedStorage`).
   * With `keep: false` (a read that records nothing), a task with no attempts in the window and no
   * grant is judged from a track that is not kept: judging an unknown task allocates nothing that
   * outlives the call, however many distinct ids are asked about.
   */
  private trackFor(taskId: string, now: number, keep = true): TaskTrack {
    let track = this.lastTrack?.taskId === taskId ? this.lastTrack : this.tracks.get(taskId);
    const cutoff = now - this.options.attemptWindow;
    if (track === undefined || this.options.sharedStorage) {
      const attempts = this.storage.attempts.listSince(taskId, cutoff);
      track = {
        taskId,
        attempts,
        head: 0,
        oldest: attempts[0]?.timestamp ?? Number.POSITIVE_INFINITY,
        runs: runsOf(attempts, this.options.blockerSignatures),
        grantActive: grantActiveIn(this.storage, taskId),
      };
      if (!keep && attempts.length === 0 && !track.grantActive && !this.tracks.has(taskId)) return track;
      this.tracks.set(taskId, track);
    } else if (track.oldest < cutoff) {
      this.expire(track, cutoff);
    }
    this.lastTrack = track;
    return track;
  }

  /** Drops the track's attempts older than `cutoff`. */
  private expire(track: TaskTrack, cutoff: number): void {
    const { attempts } = track;
    while (track.head < attempts.length && (attempts[track.head] as Attempt).timestamp < cutoff) track.head++;
    if (track.head > 1024 && track.head * 2 > attempts.length) {
      attempts.splice(0, track.head);
      track.head = 0;
    }
    track.oldest = attempts[track.head]?.timestamp ?? Number.POSITIVE_INFINITY;
  }

  /** Drops the task's track from memory. */
  private forget(taskId: string): void {
    this.tracks.delete(taskId);
    if (this.recent.some((a) => a.taskId === taskId))
      this.recent = this.recent.filter((a) => a.taskId !== taskId);
    if (this.lastTrack?.taskId === taskId) this.lastTrack = undefined;
  }
}

/** Throws an InvalidInputError naming `name` when `value` fails the port's schema. */
function checkPort(schema: z.ZodType, value: unknown, name: string): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${name}.${issue.path.join('.')}` : name;
  throw new InvalidInputError(`${where} ${issue?.message ?? 'is invalid'}, got ${describeValue(value)}`);
}

/** Whether unblock authority granted for the task is still in force, read through `ports`. */
function openEscalationIn(ports: StoragePorts, taskId: string): ContextEntry | null {
  return openEscalationOf(
    ports.stateMachine.listContextEntries({ taskId, topics: ESCALATION_TOPICS, limit: 1 })[0],
  );
}

function grantActiveIn(ports: StoragePorts, taskId: string): boolean {
  return grantActiveOf(
    ports.stateMachine.listContextEntries({ taskId, topics: RECOVERY_TOPICS, limit: 1 })[0],
  );
}

/** Writes `plan` through `tx` (inside the caller's transaction): transitions, entries, clears. */
function applyPlan(tx: StoragePorts, plan: RecoveryPlan): Extract<RecoveryOutcome, { applied: true }> {
  let task: Task | null = tx.stateMachine.getTask(plan.taskId) ?? null;
  for (const transition of plan.transitions) {
    const moved = tx.stateMachine.transition(transition.taskId, transition.status, transition.reason);
    if (transition.taskId === plan.taskId) task = moved;
  }
  const entries = plan.entries.map((entry) => tx.stateMachine.addContextEntry(entry));
  for (const taskId of plan.clearAttempts) tx.attempts.clear(taskId);
  return {
    applied: true,
    taskId: plan.taskId,
    action: plan.action,
    loopType: plan.loopType,
    entry: entries[0] as ContextEntry,
    task,
  };
}
