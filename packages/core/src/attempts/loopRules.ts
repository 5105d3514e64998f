import type { Attempt } from '../model/attempt.js';
import type { TaskStatus } from '../model/task.js';
import { normalizeVolatile } from '../signatures/normalizeVolatile.js';
import type { LoopVerdict } from './loopVerdict.js';
import { judgeBudget } from './taskBudget.js';

/** The thresholds the rules read. */
export interface LoopThresholds {
  /** Attempts in a run before it counts as a loop. */
  maxAttempts: number;
  /** Attempts of no progress from which `force_next` replaces `escalate`. */
  maxAttemptsBeforeForceNext: number;
  /** Whether a blocked spin earns unblock authority (else it escalates). */
  enableAutoUnblock: boolean;
  /** Compare blockers by their normalised signature (see {@link blockersKeyOf}); absent means `true`. */
  blockerSignatures?: boolean;
  /** Attempts per task inside the window before the budget rule escalates; `null` or absent: off. */
  maxAttemptsPerTask?: number | null;
}

/**
 * Lengths of the runs that end at the newest attempt, kept incrementally so that judging costs
 * the same whatever the length of the history.
 */
export interface RunState {
  /** Status of the newest attempt. */
  status: TaskStatus;
  /** Order-insensitive key of the newest attempt's blockers (see {@link orderInsensitiveKey}). */
  blockersKey: string;
  /** Number of the newest attempt's blockers. */
  blockersCount: number;
  /** Order-insensitive key of the newest attempt's completed work. */
  workKey: string;
  /** Number of items of the newest attempt's completed work. */
  workCount: number;
  /** Newest attempts in a row with status `done`. */
  doneRun: number;
  /** Newest attempts in a row with status `blocked` and the same blockers. */
  blockRun: number;
  /** Newest attempts in a row that are identical: same status, same blockers and same completed work. */
  workRun: number;
}

/**
 * A key that, together with the array's length, is equal for two arrays exactly when they hold the
 * same strings in any order. Items are JSON-encoded, so no separator inside an item can make two
 * different lists collide (`['a\0b', 'c']` and `['a', 'b\0c']` differ). The caller's array is never
 * reordered: a copy is sorted. Arrays of zero or one item allocate nothing.
 * @example orderInsensitiveKey(['b', 'a']) === orderInsensitiveKey(['a', 'b']); // true
 */
export function orderInsensitiveKey(values: readonly string[]): string {
  if (values.length === 0) return '';
  if (values.length === 1) return values[0] as string;
  return JSON.stringify(values.slice().sort());
}

/**
 * The key blockers are compared by. With `bySignature`, each blocker is compared by its normalised
 * signature (core's `normalizeVolatile`: durations, timestamps, ids, line numbers, temp paths
 * replaced), so `ETIMEDOUT after 1001 ms` and `ETIMEDOUT after 1003 ms` are the same blocker; the raw
 * text stays in the attempt as evidence.
 * @example blockersKeyOf(['ETIMEDOUT after 1001 ms'], true) === blockersKeyOf(['ETIMEDOUT after 1003 ms'], true); // true
 */
export function blockersKeyOf(blockers: readonly string[], bySignature: boolean): string {
  return orderInsensitiveKey(bySignature && blockers.length > 0 ? blockers.map(normalizeVolatile) : blockers);
}

/**
 * Advances `runs` past `attempt`, in place when given (the hot path allocates nothing), and returns it.
 * @param runs - the state after the attempt before `attempt`, or `undefined` for the first attempt.
 * @param blockerSignatures - compare blockers by signature (see {@link blockersKeyOf}). @default true
 */
export function stepRuns(runs: RunState | undefined, attempt: Attempt, blockerSignatures = true): RunState {
  const blockersKey = blockersKeyOf(attempt.blockers, blockerSignatures);
  const blockersCount = attempt.blockers.length;
  const workKey = orderInsensitiveKey(attempt.completedWork);
  const workCount = attempt.completedWork.length;
  if (runs === undefined) {
    return {
      status: attempt.status,
      blockersKey,
      blockersCount,
      workKey,
      workCount,
      doneRun: attempt.status === 'done' ? 1 : 0,
      blockRun: attempt.status === 'blocked' ? 1 : 0,
      workRun: 1,
    };
  }
  const sameStatus = runs.status === attempt.status;
  const sameBlockers = runs.blockersCount === blockersCount && runs.blockersKey === blockersKey;
  const sameWork = runs.workCount === workCount && runs.workKey === workKey;
  runs.doneRun = attempt.status === 'done' ? (sameStatus ? runs.doneRun + 1 : 1) : 0;
  runs.blockRun = attempt.status === 'blocked' ? (sameStatus && sameBlockers ? runs.blockRun + 1 : 1) : 0;
  runs.workRun = sameStatus && sameBlockers && sameWork ? runs.workRun + 1 : 1;
  runs.status = attempt.status;
  runs.blockersKey = blockersKey;
  runs.blockersCount = blockersCount;
  runs.workKey = workKey;
  runs.workCount = workCount;
  return runs;
}

/** Run state over `attempts` (oldest first); `undefined` when there are none. */
export function runsOf(attempts: readonly Attempt[], blockerSignatures = true): RunState | undefined {
  let runs: RunState | undefined;
  for (const attempt of attempts) runs = stepRuns(runs, attempt, blockerSignatures);
  return runs;
}

/**
 * Judges the runs. Checks in order: completed task revisited (`maxAttempts` attempts `done`:
 * force_next); blocked spin on the same (at least one) blockers (`maxAttempts`: unblock_authority,
 * or escalate when auto-unblock is off or authority was already granted); identical attempts
 * repeated — same status, blockers and completed work; blockers that change are an agent learning
 * something, not a loop (`maxAttemptsBeforeForceNext` attempts: force_next; `maxAttempts` while
 * unblock authority is in force: escalate). Runs are clipped to the `windowCount` attempts inside the window.
 *
 * @param grantActive - unblock authority was granted for the task and no recovery has followed.
 */
export function judgeRuns(
  runs: RunState | undefined,
  windowCount: number,
  grantActive: boolean,
  thresholds: LoopThresholds,
): LoopVerdict | null {
  if (runs === undefined || windowCount < thresholds.maxAttempts) return null;
  const doneRun = Math.min(runs.doneRun, windowCount);
  if (doneRun >= thresholds.maxAttempts) {
    return {
      loopType: 'completed_task_revisit',
      recommendation: 'force_next',
      attemptCount: doneRun,
      reason: null,
    };
  }
  // authority is scoped to the blockers hit: with none, there is nothing to grant (judged as no progress)
  const blockRun = runs.blockersCount > 0 ? Math.min(runs.blockRun, windowCount) : 0;
  if (blockRun >= thresholds.maxAttempts) {
    if (grantActive) {
      return {
        loopType: 'blocked_task_spin',
        recommendation: 'escalate',
        attemptCount: blockRun,
        reason: 'Loop persists after unblock authority granted.',
      };
    }
    if (!thresholds.enableAutoUnblock) {
      return {
        loopType: 'blocked_task_spin',
        recommendation: 'escalate',
        attemptCount: blockRun,
        reason: 'Auto-unblock disabled; the same blockers were hit on every attempt.',
      };
    }
    return {
      loopType: 'blocked_task_spin',
      recommendation: 'unblock_authority',
      attemptCount: blockRun,
      reason: null,
    };
  }
  const workRun = Math.min(runs.workRun, windowCount);
  if (grantActive && workRun >= thresholds.maxAttempts) {
    return {
      loopType: 'no_progress_repeat',
      recommendation: 'escalate',
      attemptCount: workRun,
      reason: 'No progress despite unblock authority.',
    };
  }
  // Judged only from maxAttemptsBeforeForceNext identical attempts: an escalation at maxAttempts would
  // block the task and clear its attempts before force_next could ever be reached (docs/decisions.md).
  if (workRun >= thresholds.maxAttemptsBeforeForceNext) {
    return {
      loopType: 'no_progress_repeat',
      recommendation: 'force_next',
      attemptCount: workRun,
      reason: null,
    };
  }
  return judgeBudget(windowCount, thresholds.maxAttemptsPerTask ?? null);
}
