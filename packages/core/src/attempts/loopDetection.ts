import type { Attempt } from '../model/attempt.js';
import type { ContextEntry } from '../model/contextEntry.js';
import { judgeRuns, type LoopThresholds, runsOf } from './loopRules.js';
import type { LoopType, LoopVerdict, Recommendation } from './loopVerdict.js';

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
  /** For a `cross_task_cycle`: the tasks of the cycle in visiting order. Absent otherwise. */
  cycleTasks?: string[];
}

/**
 * The detector options the judging and the recovery planning read, defaults applied.
 * @example const options: DetectionOptions = { maxAttempts: 3, maxAttemptsBeforeForceNext: 5, enableAutoUnblock: true, attemptWindow: 3_600_000, maxEvidence: 50 };
 */
export interface DetectionOptions extends LoopThresholds {
  /** Width of the attempt window, ms. */
  attemptWindow: number;
  /** Most attempts returned as evidence. */
  maxEvidence: number;
}

/**
 * Everything one judgement reads: pure data, so that every detector shell (synchronous over memory
 * and SQLite, asynchronous over PostgreSQL) judges the same way.
 * @example judgeAttempts({ taskId: 'T1', attempts, options, grantActive: false, now: clock.now() })
 */
export interface JudgeInput {
  /** The task judged. */
  taskId: string;
  /** The task's stored attempts, oldest first; those before the window are ignored. */
  attempts: readonly Attempt[];
  /** The thresholds, window and evidence size in force. */
  options: DetectionOptions;
  /** Whether unblock authority was granted for the task and no recovery has followed (see {@link grantActiveOf}). */
  grantActive: boolean;
  /** The time of the judgement, epoch ms. */
  now: number;
}

/**
 * Whether the task's newest recovery entry grants unblock authority that is still in force.
 * @param latestRecovery - the task's newest entry on a recovery topic, if any.
 * @example grantActiveOf(stateMachine.listContextEntries({ taskId, topics: RECOVERY_TOPICS, limit: 1 })[0])
 */
export function grantActiveOf(latestRecovery: ContextEntry | undefined): boolean {
  return latestRecovery?.topic === 'unblock_authority';
}

/**
 * The detection result of `verdict` over the attempts `attempts[head..]` inside the window.
 * @example detectionResultOf('T1', attempts, 0, judgeRuns(runsOf(attempts), attempts.length, false, thresholds), 50)
 */
export function detectionResultOf(
  taskId: string,
  attempts: readonly Attempt[],
  head: number,
  verdict: LoopVerdict | null,
  maxEvidence: number,
): LoopDetectionResult {
  const attemptCount = verdict?.attemptCount ?? attempts.length - head;
  const evidenceCount = verdict ? Math.min(attemptCount, maxEvidence) : 0;
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

/**
 * Judges a task from its stored attempts: the one function every detector shell calls when it reads
 * storage (the synchronous `LoopDetector` keeps the same runs incrementally between calls).
 *
 * @example
 * const result = judgeAttempts({ taskId: 'T1', attempts: store.listSince('T1', 0), options, grantActive: false, now });
 * if (result.isLooping) console.log(result.loopType, result.recommendation);
 */
export function judgeAttempts(input: JudgeInput): LoopDetectionResult {
  const { taskId, options, grantActive, now } = input;
  const since = now - options.attemptWindow;
  const attempts = input.attempts.every((a) => a.timestamp >= since)
    ? input.attempts
    : input.attempts.filter((a) => a.timestamp >= since);
  const verdict = judgeRuns(
    runsOf(attempts, options.blockerSignatures ?? true),
    attempts.length,
    grantActive,
    options,
  );
  return detectionResultOf(taskId, attempts, 0, verdict, options.maxEvidence);
}
