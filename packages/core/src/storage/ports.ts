import type {
  Attempt,
  AttemptSummary,
  AttemptSummaryPage,
  AttemptSummaryPageQuery,
} from '../model/attempt.js';
import type { ContextEntry, ContextEntryInput, ContextEntryQuery } from '../model/contextEntry.js';
import type { RunTally } from '../model/runTally.js';
import type { Task, TaskEvent, TaskInput, TaskStatus } from '../model/task.js';

/**
 * The state-machine port: tasks, their status transitions and the context entries.
 * Recoveries write through this port only. Adapters: {@link InMemoryStateMachine} in core,
 * `SqliteStateMachine` in `@loopguard/sqlite`.
 *
 * The port is synchronous: the adapters loopguard ships (memory, better-sqlite3) are, and it keeps
 * `recordAttempt` on the hot path free of promises.
 */
export interface StateMachine {
  /** The task, or `undefined` when the id is unknown. */
  getTask(taskId: string): Task | undefined;
  /** Tasks, optionally only those with one of `statuses`, in creation order. */
  listTasks(filter?: { statuses?: readonly TaskStatus[] }): Task[];
  /** Creates the task, or replaces its title and metadata when it exists (status is kept then). */
  upsertTask(input: TaskInput): Task;
  /**
   * Moves a task to `status`, recording `reason` in its history. A transition to `blocked` stores
   * `reason` as the task's `blockedReason`; any other status clears it.
   * @throws StorageError with code `task_not_found` when the task is unknown.
   */
  transition(taskId: string, status: TaskStatus, reason: string): Task;
  /** The task's status transitions, oldest first (append-only). */
  listTaskEvents(taskId: string): TaskEvent[];
  /** Adds a context entry; the adapter assigns `id` and `timestamp`. */
  addContextEntry(input: ContextEntryInput): ContextEntry;
  /** Context entries matching `query`, newest first. */
  listContextEntries(query?: ContextEntryQuery): ContextEntry[];
  /**
   * Keeps one row for a framework adapter's run (by `adapter` and `runId`): creates it, or replaces
   * its tally (its first `at` is kept as the run's start). The adapters call it at most once every
   * few seconds and at the run's end; the sessions view reads it. Optional: a store without it
   * lists such a run with no tool calls or dollars until loopguard stops it.
   * @throws InvalidInputError naming the field (`validateRunTally`).
   */
  recordRunTally?(tally: RunTally): void;
  /**
   * Runs `fn` so that every write it makes through this port and the attempt store that shares
   * its storage commits together or not at all; serialises against other writers on the same storage.
   */
  transaction<T>(fn: () => T): T;
}

/**
 * The attempt-store port: where `recordAttempt` persists attempts. Adapters:
 * {@link InMemoryAttemptStore} in core, `SqliteAttemptStore` in `@loopguard/sqlite`.
 */
export interface AttemptStore {
  /** Appends one attempt; durable when this returns. */
  append(attempt: Attempt): void;
  /** Appends many attempts in one write. */
  appendMany(attempts: readonly Attempt[]): void;
  /** The task's attempts with `timestamp >= since`, oldest first. */
  listSince(taskId: string, since: number): Attempt[];
  /**
   * The newest `limit` attempts of all tasks with `timestamp >= since`, oldest first (by time, then
   * arrival): what the cross-task cycle rule reads. `limit` is an integer ≥ 0.
   */
  listRecent(since: number, limit: number): Attempt[];
  /** Deletes every attempt of the task; returns how many were deleted. */
  clear(taskId: string): number;
  /** Deletes at most `limit` attempts with `timestamp < before`; returns how many were deleted. */
  prune(before: number, limit: number): number;
  /** Per task with attempts at or after `since`: their count and the newest time. */
  summarize(since: number): Map<string, AttemptSummary>;
  /**
   * One page of {@link summarize}'s result, in task-id order (code-unit order of the ids), with the
   * number of tasks on all pages. An adapter should make it cost what the page holds, not what the
   * window holds.
   */
  summarizePage(since: number, query: AttemptSummaryPageQuery): AttemptSummaryPage;
}
