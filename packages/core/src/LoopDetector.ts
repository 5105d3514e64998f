import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Attempt, AttemptSummary } from './attempt.js';
import { newAttempt } from './attemptInput.js';
import { type Clock, systemClock } from './clock.js';
import { type ContextEntry, RECOVERY_TOPICS } from './contextEntry.js';
import { ConfigurationError, InvalidInputError } from './errors.js';
import { InMemoryAttemptStore } from './InMemoryAttemptStore.js';
import { silentLogger } from './logger.js';
import {
  type DetectionOptions,
  detectionResultOf,
  grantActiveOf,
  judgeAttempts,
  type LoopDetectionResult,
} from './loopDetection.js';
import { type LoopDetectorOptions, loopDetectorOptionsSchema } from './loopDetectorOptions.js';
import {
  judgeRuns,
  type LoopType,
  type Recommendation,
  type RunState,
  runsOf,
  stepRuns,
} from './loopRules.js';
import { parseOptions } from './parseOptions.js';
import { stateMachineSchema, storageSchema } from './portSchemas.js';
import type { StateMachine } from './ports.js';
import { planRecovery, type RecoveryPlan } from './recoveryPlan.js';
import { SafeEmitter } from './SafeEmitter.js';
import { isStorage, type Storage, type StoragePorts, storageOf } from './storage.js';
import type { Task, TaskStatus } from './task.js';
import { assertNonEmptyString, describeValue } from './validate.js';

export type { LoopDetectionResult } from './loopDetection.js';

/** What {@link LoopDetector.applyRecovery} returns. */
export type RecoveryOutcome =
  | {
      /** A recovery was written. */
      applied: true;
      taskId: string;
      /** The recovery written. */
      action: Recommendation;
      loopType: LoopType;
      /** The context entry written. */
      entry: ContextEntry;
      /** The task after the recovery; `null` when the state machine does not know the task. */
      task: Task | null;
    }
  | {
      /** Nothing was written. */
      applied: false;
      taskId: string;
      /** Why nothing was written: the result was not a loop, or the loop no longer holds in storage. */
      reason: string;
    };

/** Events of {@link LoopDetector} (eventemitter3). */
export interface LoopDetectorEvents {
  /** An attempt was stored. */
  attemptRecorded: [attempt: Attempt];
  /** `detectLoop` found a loop. */
  loopDetected: [result: LoopDetectionResult];
  /** `applyRecovery` wrote a recovery. */
  recoveryApplied: [outcome: Extract<RecoveryOutcome, { applied: true }>];
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
    this.clock = parsed.clock ?? systemClock;
    this.options = Object.freeze({
      maxAttempts: parsed.maxAttempts,
      attemptWindow: parsed.attemptWindow,
      enableAutoUnblock: parsed.enableAutoUnblock,
      maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
      maxEvidence: parsed.maxEvidence,
      pruneEvery: parsed.pruneEvery,
      pruneBatchSize: parsed.pruneBatchSize,
      sharedStorage: parsed.sharedStorage,
    });
    this.detection = {
      maxAttempts: parsed.maxAttempts,
      maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
      enableAutoUnblock: parsed.enableAutoUnblock,
      attemptWindow: parsed.attemptWindow,
      maxEvidence: parsed.maxEvidence,
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
    assertNonEmptyString(taskId, 'taskId');
    const track = this.trackFor(taskId, this.clock.now());
    const windowCount = track.attempts.length - track.head;
    const verdict = judgeRuns(track.runs, windowCount, track.grantActive, this.detection);
    const result = detectionResultOf(taskId, track.attempts, track.head, verdict, this.detection.maxEvidence);
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
    if (result === null || typeof result !== 'object' || typeof result.isLooping !== 'boolean') {
      throw new InvalidInputError(`result must be a LoopDetectionResult, got ${describeValue(result)}`);
    }
    assertNonEmptyString(result.taskId, 'result.taskId');
    if (!result.isLooping)
      return { applied: false, taskId: result.taskId, reason: 'The result is not a loop.' };
    const { outcome } = this.recover(result.taskId);
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
   * Per task with attempts inside the window: `{ attemptCount, lastAttempt }` (the seed's dashboard shape).
   */
  getStatus(): Record<string, AttemptSummary> {
    const since = this.clock.now() - this.options.attemptWindow;
    return Object.fromEntries(this.storage.attempts.summarize(since));
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

  /** Validates the seed's arguments and builds the frozen attempt, stamped now. */
  private newAttempt(
    taskId: string,
    status: string,
    blockers: readonly string[],
    completedWork: readonly string[],
    sessionId: string,
  ): Attempt {
    return newAttempt(taskId, status, blockers, completedWork, sessionId, this.clock.now());
  }

  private afterRecord(track: TaskTrack, attempt: Attempt): void {
    if (track.attempts.push(attempt) - track.head === 1) track.oldest = attempt.timestamp;
    track.runs = stepRuns(track.runs, attempt);
    if (++this.recordsSincePrune >= this.options.pruneEvery) this.prune();
    this.emit('attemptRecorded', attempt);
  }

  private announce(result: LoopDetectionResult): void {
    this.log.warn(
      {
        taskId: result.taskId,
        loopType: result.loopType,
        attemptCount: result.attemptCount,
        recommendation: result.recommendation,
      },
      `Loop detected: ${result.loopType}, taskId=${result.taskId}, attemptCount=${result.attemptCount}, recommendation=${result.recommendation}`,
    );
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

  /** The task's track, loaded from storage when new (or on every call with `sharedStorage`). */
  private trackFor(taskId: string, now: number): TaskTrack {
    let track = this.lastTrack?.taskId === taskId ? this.lastTrack : this.tracks.get(taskId);
    const cutoff = now - this.options.attemptWindow;
    if (track === undefined || this.options.sharedStorage) {
      const attempts = this.storage.attempts.listSince(taskId, cutoff);
      track = {
        taskId,
        attempts,
        head: 0,
        oldest: attempts[0]?.timestamp ?? Number.POSITIVE_INFINITY,
        runs: runsOf(attempts),
        grantActive: grantActiveIn(this.storage, taskId),
      };
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
