import type { Attempt } from '../model/attempt.js';
import type { ContextEntryInput } from '../model/contextEntry.js';
import { evidenceAttempt } from '../model/sizeLimits.js';
import type { Task } from '../model/task.js';
import type { LoopDetectionResult } from './loopDetection.js';
import { blockersKeyOf, orderInsensitiveKey } from './loopRules.js';
import type { PlannedTransition } from './recoveryPlan.js';

/** What the cross-task cycle rule reads. */
export interface TaskCycleOptions {
  /** Rounds of the cycle, each task attempted once per round, all without progress. Integer ≥ 2. */
  cycleRounds: number;
  /** Most distinct tasks in one cycle (2 = T1 → T2 → T1 …; 3 adds T1 → T2 → T3 → T1 …). */
  maxCycleTasks: number;
  /** Compare blockers by signature, as the per-task rules do. @default true */
  blockerSignatures?: boolean;
}

/** A cycle found by {@link findTaskCycle}. */
export interface TaskCycle {
  /** The tasks of the cycle, in the order the autopilot visits them. */
  tasks: string[];
  /** Rounds found (equal to `cycleRounds`). */
  rounds: number;
  /** The attempts of the cycle, oldest first (`tasks.length × rounds` of them). */
  evidence: Attempt[];
}

/** Same status, same blockers, same completed work (in any order). */
function sameOutcome(a: Attempt, b: Attempt, blockerSignatures: boolean): boolean {
  return (
    a.status === b.status &&
    a.blockers.length === b.blockers.length &&
    a.completedWork.length === b.completedWork.length &&
    blockersKeyOf(a.blockers, blockerSignatures) === blockersKeyOf(b.blockers, blockerSignatures) &&
    orderInsensitiveKey(a.completedWork) === orderInsensitiveKey(b.completedWork)
  );
}

/**
 * The cross-task cycle that the newest attempts make, if any: for a cycle of 2 to `maxCycleTasks`
 * distinct tasks, the newest `tasks × cycleRounds` attempts visit the tasks in the same order every
 * round, and every attempt of a task repeats its previous one (same status, blockers and work): the
 * autopilot goes round without any of them progressing. The shortest cycle wins.
 *
 * @param recent - the newest attempts across all tasks, oldest first (only those inside the window).
 * @example
 * findTaskCycle(attempts, { cycleRounds: 3, maxCycleTasks: 3 })?.tasks; // ['T1', 'T2', 'T3']
 */
export function findTaskCycle(recent: readonly Attempt[], options: TaskCycleOptions): TaskCycle | null {
  for (let size = 2; size <= options.maxCycleTasks; size++) {
    const span = size * options.cycleRounds;
    if (recent.length < span) return null;
    const window = recent.slice(recent.length - span);
    const tasks = window.slice(0, size).map((a) => a.taskId);
    if (new Set(tasks).size !== size) continue;
    let cycling = true;
    for (let i = size; i < span && cycling; i++) {
      const attempt = window[i] as Attempt;
      const previous = window[i - size] as Attempt;
      cycling =
        attempt.taskId === previous.taskId &&
        sameOutcome(attempt, previous, options.blockerSignatures ?? true);
    }
    if (cycling) return { tasks, rounds: options.cycleRounds, evidence: window };
  }
  return null;
}

/**
 * Plans the recovery of a cross-task cycle (pure): every known task of the cycle moves to `blocked`
 * (so the escalation sticks for each, until resolved), one `loop_escalation` entry names all of them
 * with the cycle's attempts as evidence, and their attempts are cleared.
 * @example planCycleRecovery(cycle, { cycleRounds: 3, maxCycleTasks: 3 }, (id) => stateMachine.getTask(id))
 */
export function planCycleRecovery(
  cycle: TaskCycle,
  options: TaskCycleOptions,
  taskOf: (taskId: string) => Task | undefined,
): { transitions: PlannedTransition[]; entry: ContextEntryInput; clearAttempts: string[] } {
  const path = [...cycle.tasks, cycle.tasks[0]].join(' → ');
  const reason = `Cross-task cycle ${path} for ${cycle.rounds} rounds without progress.`;
  return {
    transitions: cycle.tasks
      .filter((taskId) => taskOf(taskId) !== undefined)
      .map((taskId) => ({ taskId, status: 'blocked' as const, reason: `Loop escalation: ${reason}` })),
    entry: {
      entryType: 'decision',
      topic: 'loop_escalation',
      content:
        `ESCALATION: Loop detected across tasks ${cycle.tasks.join(', ')} after ${cycle.evidence.length} attempts.\n` +
        `Human intervention required.\nReason: ${reason}`,
      relatedTasks: [...cycle.tasks],
      confidence: 1,
      metadata: {
        loopType: 'cross_task_cycle',
        recommendation: 'escalate',
        tasks: [...cycle.tasks],
        rounds: cycle.rounds,
        attemptCount: cycle.evidence.length,
        reason,
        thresholds: { ...options },
        evidence: cycle.evidence.map(evidenceAttempt),
      },
    },
    clearAttempts: [...cycle.tasks],
  };
}

/**
 * The lock key of a cycle's recovery: its tasks in a fixed order, JSON-encoded so that no task id
 * can run into another and no control character (PostgreSQL's text refuses NUL) reaches the storage.
 * @example cycleLockKey(['T2', 'T1']); // 'cycle:["T1","T2"]'
 */
export function cycleLockKey(tasks: readonly string[]): string {
  return `cycle:${JSON.stringify([...tasks].sort())}`;
}

/**
 * The detection result of `cycle` for `taskId`, one of its tasks: a `cross_task_cycle` escalation
 * with the newest `maxEvidence` attempts of the cycle as evidence.
 */
export function cycleResultOf(cycle: TaskCycle, taskId: string, maxEvidence: number): LoopDetectionResult {
  const path = [...cycle.tasks, cycle.tasks[0]].join(' → ');
  return {
    taskId,
    isLooping: true,
    loopType: 'cross_task_cycle',
    attemptCount: cycle.evidence.length,
    recommendation: 'escalate',
    blockers: [],
    reason: `Cross-task cycle ${path} for ${cycle.rounds} rounds without progress.`,
    evidence: cycle.evidence.slice(-maxEvidence),
    cycleTasks: cycle.tasks,
  };
}
