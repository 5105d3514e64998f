import { InvalidInputError } from '../kernel/errors.js';
import type { Attempt, AttemptSummary } from '../model/attempt.js';
import { restamped } from '../model/attemptInput.js';
import { nextAttemptTimestamp } from '../model/attemptOrder.js';
import { type ContextEntry, RECOVERY_TOPICS } from '../model/contextEntry.js';
import type { Task } from '../model/task.js';
import { actionOfTopic } from '../storage/recoveryView.js';
import type { AppliedRecovery, EscalationResolved, RecoveryRecord, StatusPage } from './detectorTypes.js';
import {
  ESCALATION_TOPICS,
  openEscalationOf,
  planResolution,
  type ResolveEscalationInput,
} from './escalation.js';
import {
  type DetectionOptions,
  grantActiveOf,
  judgeAttempts,
  type LoopDetectionResult,
} from './loopDetection.js';
import type { LoopType, Recommendation } from './loopVerdict.js';
import { call, type Workflow } from './portCall.js';
import type { RecoveryOutcome } from './recoveryOutcome.js';
import { planRecovery, type RecoveryPlan } from './recoveryPlan.js';
import { findTaskCycle, planCycleRecovery, type TaskCycle, type TaskCycleOptions } from './taskCycle.js';

/**
 * The attempt-level detector's workflows, each written once as read → pure decision → write plan.
 * They only yield port calls (see {@link call}); `LoopDetector` runs them synchronously over memory
 * and SQLite, `SharedLoopDetector` asynchronously over PostgreSQL inside a transaction locked on
 * the task.
 */

/** A judgement and the recovery it led to. */
export interface Recovery {
  /** What the recovery wrote, or why nothing was. */
  outcome: RecoveryOutcome;
  /** The detection the recovery answered. */
  detection: LoopDetectionResult;
}

/** The task's newest entry on one of `topics`. */
function* newestEntry(taskId: string, topics: readonly string[]): Workflow<ContextEntry | undefined> {
  const [newest] = yield* call('stateMachine', 'listContextEntries', { taskId, topics, limit: 1 });
  return newest;
}

/** Whether unblock authority granted for the task is still in force. */
export function* grantActive(taskId: string): Workflow<boolean> {
  return grantActiveOf(yield* newestEntry(taskId, RECOVERY_TOPICS));
}

/** The task's open escalation, or `null`. */
export function* openEscalation(taskId: string): Workflow<ContextEntry | null> {
  return openEscalationOf(yield* newestEntry(taskId, ESCALATION_TOPICS));
}

/** Appends `attempt` and moves its task to the attempt's status when known and in another status. */
export function* recordWithTransition(attempt: Attempt, reason: string): Workflow<Task | null> {
  let task = (yield* call('stateMachine', 'getTask', attempt.taskId)) ?? null;
  if (task !== null && task.status !== attempt.status) {
    task = yield* call('stateMachine', 'transition', attempt.taskId, attempt.status, reason);
  }
  yield* call('attempts', 'append', attempt);
  return task;
}

/** The timestamp of the task's newest attempt inside the window, if any. */
export function* newestAttemptTime(taskId: string, since: number): Workflow<number | undefined> {
  return (yield* call('attempts', 'listSince', taskId, since)).at(-1)?.timestamp;
}

/** Judges the task from its stored attempts. */
export function* judgeStored(
  taskId: string,
  now: number,
  options: DetectionOptions,
): Workflow<LoopDetectionResult> {
  const attempts = yield* call('attempts', 'listSince', taskId, now - options.attemptWindow);
  return judgeAttempts({ taskId, attempts, options, grantActive: yield* grantActive(taskId), now });
}

/** Re-judges the task against storage and, when it still loops, writes its recovery. */
export function* recoverTask(taskId: string, now: number, options: DetectionOptions): Workflow<Recovery> {
  const detection = yield* judgeStored(taskId, now, options);
  const plan = planRecovery(detection, options, yield* call('stateMachine', 'getTask', taskId));
  if (plan === null) {
    const reason = 'The loop no longer holds in storage (already recovered?).';
    return { detection, outcome: { applied: false, taskId, reason } };
  }
  return { detection, outcome: yield* applyPlan(plan) };
}

/** Writes `plan` in its order: transitions, entries, clears. */
function* applyPlan(plan: RecoveryPlan): Workflow<AppliedRecovery> {
  let task = (yield* call('stateMachine', 'getTask', plan.taskId)) ?? null;
  for (const t of plan.transitions) {
    const moved = yield* call('stateMachine', 'transition', t.taskId, t.status, t.reason);
    if (t.taskId === plan.taskId) task = moved;
  }
  const entries: ContextEntry[] = [];
  for (const entry of plan.entries) entries.push(yield* call('stateMachine', 'addContextEntry', entry));
  for (const id of plan.clearAttempts) yield* call('attempts', 'clear', id);
  const { taskId, action, loopType } = plan;
  return { applied: true, taskId, action, loopType, entry: entries[0] as ContextEntry, task };
}

/** The cross-task cycle the newest stored attempts (every worker's) make, if it includes `taskId`. */
export function* storedCycle(
  taskId: string,
  since: number,
  options: TaskCycleOptions,
): Workflow<TaskCycle | null> {
  const recent = yield* call('attempts', 'listRecent', since, options.cycleRounds * options.maxCycleTasks);
  const cycle = findTaskCycle(recent, options);
  return cycle?.tasks.includes(taskId) ? cycle : null;
}

/**
 * Re-judges the stored cycle that includes `taskId` and, when it still holds, escalates every task
 * of it; `null` when it no longer holds (another worker recovered it, or new attempts broke it).
 */
export function* recoverStoredCycle(
  taskId: string,
  since: number,
  options: TaskCycleOptions,
): Workflow<{ cycle: TaskCycle; outcome: AppliedRecovery } | null> {
  const cycle = yield* storedCycle(taskId, since, options);
  return cycle === null ? null : { cycle, outcome: yield* recoverCycle(taskId, cycle, options) };
}

/** Escalates every task of `cycle` (the cycle `taskId` is part of). */
export function* recoverCycle(
  taskId: string,
  cycle: TaskCycle,
  options: TaskCycleOptions,
): Workflow<AppliedRecovery> {
  const known = new Map<string, Task | undefined>();
  for (const id of cycle.tasks) known.set(id, yield* call('stateMachine', 'getTask', id));
  const plan = planCycleRecovery(cycle, options, (id) => known.get(id));
  let task = known.get(taskId) ?? null;
  for (const t of plan.transitions) {
    const moved = yield* call('stateMachine', 'transition', t.taskId, t.status, t.reason);
    if (t.taskId === taskId) task = moved;
  }
  const entry = yield* call('stateMachine', 'addContextEntry', plan.entry);
  for (const id of plan.clearAttempts) yield* call('attempts', 'clear', id);
  return { applied: true, taskId, action: 'escalate', loopType: 'cross_task_cycle', entry, task };
}

/** Releases the task's open escalation (`input` checked by the caller). */
export function* resolveEscalation(
  taskId: string,
  input: ResolveEscalationInput,
): Workflow<EscalationResolved> {
  const escalation = yield* openEscalation(taskId);
  if (escalation === null) {
    throw new InvalidInputError(`taskId ${JSON.stringify(taskId)} has no open escalation to resolve`);
  }
  const known = yield* call('stateMachine', 'getTask', taskId);
  const plan = planResolution(taskId, escalation, input, known);
  let task = known ?? null;
  for (const t of plan.transitions)
    task = yield* call('stateMachine', 'transition', t.taskId, t.status, t.reason);
  const entry = yield* call('stateMachine', 'addContextEntry', plan.entry);
  yield* call('attempts', 'clear', taskId);
  return { taskId, escalation, entry, task };
}

/** The recoveries written so far, newest first (`query` checked by the caller). */
export function* listRecoveries(query: { taskId?: string; limit: number }): Workflow<RecoveryRecord[]> {
  const entries = yield* call('stateMachine', 'listContextEntries', { topics: RECOVERY_TOPICS, ...query });
  return entries.map((entry) => ({
    id: entry.id,
    timestamp: entry.timestamp,
    action: actionOfTopic(entry.topic) as Recommendation,
    loopType: entry.metadata.loopType as LoopType,
    tasks: [...entry.relatedTasks],
    content: entry.content,
    entry,
  }));
}

/** Per task with attempts since `since`: the seed's dashboard shape. */
export function* status(since: number): Workflow<Record<string, AttemptSummary>> {
  return Object.fromEntries(yield* call('attempts', 'summarize', since));
}

/** One page of {@link status} (`page` checked by the caller). */
export function* statusPage(since: number, page: { limit: number; cursor?: string }): Workflow<StatusPage> {
  const result = yield* call('attempts', 'summarizePage', since, page);
  return { tasks: Object.fromEntries(result.tasks), total: result.total, nextCursor: result.nextCursor };
}

/**
 * `attempt`, restamped so that it is never older than the task's newest stored attempt inside the
 * window (every worker's): the one ordering rule when clocks differ or go back.
 */
export function* monotonic(attempt: Attempt, since: number): Workflow<Attempt> {
  const newest = yield* newestAttemptTime(attempt.taskId, since);
  return restamped(attempt, nextAttemptTimestamp(attempt.timestamp, newest));
}
