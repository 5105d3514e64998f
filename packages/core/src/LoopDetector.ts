import type { Logger } from 'pino';
import type { Attempt, AttemptSummary } from './attempt.js';
import { type Clock, systemClock } from './clock.js';
import { type ContextEntry, RECOVERY_TOPICS } from './contextEntry.js';
import { InvalidInputError } from './errors.js';
import { silentLogger } from './logger.js';
import { type LoopDetectorOptions, loopDetectorOptionsSchema } from './loopDetectorOptions.js';
import {
  judgeRuns,
  type LoopThresholds,
  type LoopType,
  type LoopVerdict,
  type Recommendation,
  type RunState,
  runsOf,
  stepRuns,
} from './loopRules.js';
import { parseOptions } from './parseOptions.js';
import type { AttemptStore, StateMachine } from './ports.js';
import {
  escalationContent,
  forceNextContent,
  UNBLOCK_PERMISSIONS,
  unblockAuthorityContent,
} from './recoveryContent.js';
import { SafeEmitter } from './SafeEmitter.js';
import type { Task } from './task.js';
import { assertNonEmptyString, assertStringArray, assertTaskStatus, describeValue } from './validate.js';

/** What {@link LoopDetector.detectLoop} returns. */
export interface LoopDetectionResult {
  /** The task judged. */
  taskId: string;
  /** Whether the task is in a loop. */
  isLooping: boolean;
  /** Which loop; `null` when not looping. */
  loopType: LoopType | null;
  /** Attempts in the loop's run, or, when not looping, attempts inside the window. */
  attemptCount: number;
  /** The recovery to apply; `null` when not looping. */
  recommendation: Recommendation | null;
  /** Blockers of the newest attempt of the loop (for a blocked spin: the blockers spun on); empty when not looping. */
  blockers: string[];
  /** Why `escalate` was chosen; `null` otherwise. */
  reason: string | null;
  /** The attempts that make the loop (the newest `maxEvidence` of them), oldest first; empty when not looping. */
  evidence: Attempt[];
}

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

const EMPTY: readonly string[] = Object.freeze([]);

/** A frozen copy of `values`; empty arrays share one frozen instance. */
function frozenCopy(values: readonly string[]): readonly string[] {
  return values.length === 0 ? EMPTY : Object.freeze(values.slice());
}

const TOPIC_OF: Record<Recommendation, (typeof RECOVERY_TOPICS)[number]> = {
  force_next: 'loop_recovery',
  unblock_authority: 'unblock_authority',
  escalate: 'loop_escalation',
};

/**
 * Detects the seed's three loops from recorded attempts and applies their recoveries through the
 * state machine.
 *
 * Per call, `recordAttempt` and `detectLoop` cost the same whatever the length of the task's
 * history: run lengths are kept incrementally. The detector loads a task's attempts from the
 * attempt store the first time it sees the task, so a restarted process resumes where it stopped.
 *
 * @example
 * const detector = new LoopDetector(stateMachine, { maxAttempts: 3, enableAutoUnblock: true });
 * detector.recordAttempt('T3.4.3', 'blocked', ['missing auth token'], [], 'session_1');
 * const result = detector.detectLoop('T3.4.3');
 * if (result.isLooping) await detector.applyRecovery(result);
 */
export class LoopDetector extends SafeEmitter<LoopDetectorEvents> {
  /** The options in force, defaults applied. */
  readonly options: Readonly<Required<Omit<LoopDetectorOptions, 'attemptStore' | 'clock' | 'logger'>>>;
  private readonly thresholds: LoopThresholds;
  /** `null`: attempts live only in this detector's memory. */
  private readonly attemptStore: AttemptStore | null;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly tracks = new Map<string, TaskTrack>();
  /** The track used last: `detectLoop` right after `recordAttempt` of the same task skips a lookup. */
  private lastTrack: TaskTrack | undefined;
  private sweep: Iterator<[string, TaskTrack]> | undefined;
  private recordsSincePrune = 0;

  /**
   * @param stateMachine - where recoveries are written (tasks and context entries).
   * @param options - see {@link LoopDetectorOptions}.
   * @throws ConfigurationError when an option is out of range.
   */
  constructor(
    private readonly stateMachine: StateMachine,
    options: LoopDetectorOptions = {},
  ) {
    const parsed = parseOptions(loopDetectorOptionsSchema, options, 'LoopDetector options');
    const log = (parsed.logger ?? silentLogger()).child({ component: 'LoopDetector' });
    super(log);
    if (typeof stateMachine?.addContextEntry !== 'function') {
      throw new InvalidInputError(
        `stateMachine must implement StateMachine, got ${describeValue(stateMachine)}`,
      );
    }
    this.log = log;
    this.clock = parsed.clock ?? systemClock;
    this.attemptStore = parsed.attemptStore ?? null;
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
    this.thresholds = {
      maxAttempts: parsed.maxAttempts,
      maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
      enableAutoUnblock: parsed.enableAutoUnblock,
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
    assertNonEmptyString(taskId, 'taskId');
    assertTaskStatus(status, 'status');
    assertStringArray(blockers, 'blockers');
    assertStringArray(completedWork, 'completedWork');
    if (typeof sessionId !== 'string') {
      throw new InvalidInputError(`sessionId must be a string, got ${describeValue(sessionId)}`);
    }
    const now = this.clock.now();
    const track = this.trackFor(taskId, now);
    const attempt: Attempt = Object.freeze({
      taskId,
      timestamp: now,
      status,
      blockers: frozenCopy(blockers),
      completedWork: frozenCopy(completedWork),
      sessionId,
    });
    this.attemptStore?.append(attempt);
    if (track.attempts.push(attempt) - track.head === 1) track.oldest = now;
    track.runs = stepRuns(track.runs, attempt);
    if (++this.recordsSincePrune >= this.options.pruneEvery) this.prune();
    this.emit('attemptRecorded', attempt);
    return attempt;
  }

  /**
   * Judges the task's attempts inside the window.
   * @throws InvalidInputError when `taskId` is not a non-empty string.
   */
  detectLoop(taskId: string): LoopDetectionResult {
    assertNonEmptyString(taskId, 'taskId');
    const track = this.trackFor(taskId, this.clock.now());
    const windowCount = track.attempts.length - track.head;
    const verdict = judgeRuns(track.runs, windowCount, track.grantActive, this.thresholds);
    const result = this.resultOf(taskId, track.attempts, track.head, verdict);
    if (result.isLooping) {
      this.log.warn(
        {
          taskId,
          loopType: result.loopType,
          attemptCount: result.attemptCount,
          recommendation: result.recommendation,
        },
        `Loop detected: ${result.loopType}, taskId=${taskId}, attemptCount=${result.attemptCount}, recommendation=${result.recommendation}`,
      );
      this.emit('loopDetected', result);
    }
    return result;
  }

  /**
   * Applies the recovery a detection recommends, through the state machine only:
   * - `force_next`: the task is marked `done`; an entry on topic `loop_recovery` tells the autopilot not to revisit it.
   * - `unblock_authority`: an entry on topic `unblock_authority` grants authority scoped to the task and its blockers.
   * - `escalate`: the task is marked `blocked`; an entry on topic `loop_escalation` gives the reason.
   *
   * The loop is re-judged against storage inside one transaction with the writes, so when several
   * processes detect the same loop exactly one recovery is written. The task's attempts are cleared
   * in the same transaction: a new loop needs fresh attempts.
   *
   * @throws InvalidInputError when `result` is not a detection result.
   */
  async applyRecovery(result: LoopDetectionResult): Promise<RecoveryOutcome> {
    if (result === null || typeof result !== 'object' || typeof result.isLooping !== 'boolean') {
      throw new InvalidInputError(`result must be a LoopDetectionResult, got ${describeValue(result)}`);
    }
    assertNonEmptyString(result.taskId, 'result.taskId');
    const { taskId } = result;
    if (!result.isLooping) return { applied: false, taskId, reason: 'The result is not a loop.' };

    const now = this.clock.now();
    const outcome = this.stateMachine.transaction((): RecoveryOutcome => {
      const attempts = this.listSince(taskId, now - this.options.attemptWindow);
      const verdict = judgeRuns(
        runsOf(attempts),
        attempts.length,
        this.grantActiveInStorage(taskId),
        this.thresholds,
      );
      if (verdict === null) {
        return {
          applied: false,
          taskId,
          reason: 'The loop no longer holds in storage (already recovered?).',
        };
      }
      const fresh = this.resultOf(taskId, attempts, 0, verdict);
      const written = this.writeRecovery(fresh, verdict);
      this.attemptStore?.clear(taskId);
      return written;
    });

    this.forget(taskId);
    if (!outcome.applied) return outcome;
    this.tracks.set(taskId, {
      taskId,
      attempts: [],
      head: 0,
      oldest: Number.POSITIVE_INFINITY,
      runs: undefined,
      grantActive: outcome.action === 'unblock_authority',
    });
    this.log.info(
      { taskId, action: outcome.action, entryId: outcome.entry.id },
      `Loop recovery applied: ${outcome.action}`,
    );
    this.emit('recoveryApplied', outcome);
    return outcome;
  }

  /**
   * Per task with attempts inside the window: `{ attemptCount, lastAttempt }` (the seed's dashboard shape).
   */
  getStatus(): Record<string, AttemptSummary> {
    const since = this.clock.now() - this.options.attemptWindow;
    if (this.attemptStore) return Object.fromEntries(this.attemptStore.summarize(since));
    const status: Record<string, AttemptSummary> = {};
    for (const [taskId, track] of this.tracks) {
      const inWindow = track.attempts.filter((a, i) => i >= track.head && a.timestamp >= since);
      const newest = inWindow[inWindow.length - 1];
      if (newest) status[taskId] = { attemptCount: inWindow.length, lastAttempt: newest.timestamp };
    }
    return status;
  }

  /**
   * Forgets a task's attempts (in storage too), for an operator who resolved a loop by hand.
   * @returns how many stored attempts were deleted.
   */
  clearTask(taskId: string): number {
    assertNonEmptyString(taskId, 'taskId');
    const track = this.tracks.get(taskId);
    const deleted = this.attemptStore
      ? this.attemptStore.clear(taskId)
      : track
        ? track.attempts.length - track.head
        : 0;
    this.forget(taskId);
    return deleted;
  }

  /**
   * Prunes one bounded batch of expired attempts from the attempt store and forgets a bounded number
   * of idle tasks from memory. `recordAttempt` calls it every `pruneEvery` records.
   * @returns how many stored attempts were deleted (0 without an attempt store).
   */
  prune(): number {
    this.recordsSincePrune = 0;
    const cutoff = this.clock.now() - this.options.attemptWindow;
    const deleted = this.attemptStore?.prune(cutoff, this.options.pruneBatchSize) ?? 0;
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

  private trackFor(taskId: string, now: number): TaskTrack {
    let track = this.lastTrack?.taskId === taskId ? this.lastTrack : this.tracks.get(taskId);
    const cutoff = now - this.options.attemptWindow;
    if (track === undefined || this.options.sharedStorage) {
      const attempts = this.attemptStore?.listSince(taskId, cutoff) ?? [];
      track = {
        taskId,
        attempts,
        head: 0,
        oldest: attempts[0]?.timestamp ?? Number.POSITIVE_INFINITY,
        runs: runsOf(attempts),
        grantActive: this.grantActiveInStorage(taskId),
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

  /** The task's attempts at or after `since`, from the store, or from memory when there is none. */
  private listSince(taskId: string, since: number): Attempt[] {
    if (this.attemptStore) return this.attemptStore.listSince(taskId, since);
    const track = this.tracks.get(taskId);
    return track ? track.attempts.filter((a, i) => i >= track.head && a.timestamp >= since) : [];
  }

  /** Whether the newest recovery entry of the task granted unblock authority. */
  private grantActiveInStorage(taskId: string): boolean {
    const [latest] = this.stateMachine.listContextEntries({ taskId, topics: RECOVERY_TOPICS, limit: 1 });
    return latest?.topic === 'unblock_authority';
  }

  private resultOf(
    taskId: string,
    attempts: readonly Attempt[],
    head: number,
    verdict: LoopVerdict | null,
  ): LoopDetectionResult {
    const attemptCount = verdict?.attemptCount ?? attempts.length - head;
    const evidenceCount = verdict ? Math.min(attemptCount, this.options.maxEvidence) : 0;
    const newest = attempts[attempts.length - 1];
    return {
      taskId,
      isLooping: verdict !== null,
      loopType: verdict?.loopType ?? null,
      attemptCount,
      recommendation: verdict?.recommendation ?? null,
      blockers: verdict && newest ? newest.blockers.slice() : [],
      reason: verdict?.reason ?? null,
      evidence: evidenceCount === 0 ? [] : attempts.slice(attempts.length - evidenceCount),
    };
  }

  private writeRecovery(
    result: LoopDetectionResult,
    verdict: LoopVerdict,
  ): Extract<RecoveryOutcome, { applied: true }> {
    const { taskId } = result;
    const action = verdict.recommendation;
    const known = this.stateMachine.getTask(taskId) !== undefined;
    const metadata: Record<string, unknown> = {
      taskId,
      loopType: verdict.loopType,
      recommendation: action,
      attemptCount: verdict.attemptCount,
      blockers: result.blockers,
      reason: verdict.reason,
      thresholds: { ...this.thresholds, attemptWindow: this.options.attemptWindow },
      evidence: result.evidence.map((a) => ({ ...a })),
      taskKnown: known,
    };
    let task: Task | null = known ? (this.stateMachine.getTask(taskId) ?? null) : null;
    let content: string;
    if (action === 'force_next') {
      content = forceNextContent(taskId, verdict);
      if (known && task?.status !== 'done') {
        task = this.stateMachine.transition(
          taskId,
          'done',
          `Loop recovery (${verdict.loopType}): force next task`,
        );
      }
    } else if (action === 'unblock_authority') {
      this.log.info({ taskId, blockers: result.blockers }, `Granting unblock authority for ${taskId}`);
      content = unblockAuthorityContent(taskId, result.blockers, verdict.attemptCount);
      metadata.scope = { taskId, blockers: result.blockers };
      metadata.permissions = [...UNBLOCK_PERMISSIONS];
    } else {
      this.log.warn({ taskId, reason: verdict.reason }, `Escalating ${taskId} to a human: ${verdict.reason}`);
      content = escalationContent(taskId, verdict);
      if (known) task = this.stateMachine.transition(taskId, 'blocked', `Loop escalation: ${verdict.reason}`);
    }
    const entry = this.stateMachine.addContextEntry({
      entryType: action === 'force_next' ? 'constraint' : 'decision',
      topic: TOPIC_OF[action],
      content,
      relatedTasks: [taskId],
      confidence: 1,
      metadata,
    });
    return { applied: true, taskId, action, loopType: verdict.loopType, entry, task };
  }
}
