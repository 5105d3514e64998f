import type { Clock } from '../kernel/clock.js';
import { checkedClock, systemClock } from '../kernel/clock.js';
import { StorageError } from '../kernel/errors.js';
import { UndoJournal } from '../kernel/UndoJournal.js';
import { assertNonEmptyString } from '../kernel/validate.js';
import type { ContextEntry, ContextEntryInput, ContextEntryQuery } from '../model/contextEntry.js';
import {
  validateContextEntryInput,
  validateContextEntryQuery,
  validateTaskInput,
} from '../model/stateMachineInput.js';
import {
  assertTaskStatus,
  type Task,
  type TaskEvent,
  type TaskInput,
  type TaskStatus,
} from '../model/task.js';
import type { StateMachine } from '../storage/ports.js';

/** Options of {@link InMemoryStateMachine}. */
export interface InMemoryStateMachineOptions {
  /** Source of timestamps. @default systemClock */
  clock?: Clock;
  /**
   * The undo log shared with other in-memory ports, so that one transaction covers them all
   * ({@link InMemoryStorage} passes its own).
   * @default a journal of its own
   */
  journal?: UndoJournal;
}

/**
 * The state machine kept in memory: the default for tests and for embedding without a database.
 * Returned objects are frozen copies; callers cannot change stored state by mutating them.
 *
 * @example
 * const sm = new InMemoryStateMachine();
 * sm.upsertTask({ id: 'T1', title: 'Build the login page' });
 * sm.transition('T1', 'in_progress', 'picked by autopilot');
 */
export class InMemoryStateMachine implements StateMachine {
  private readonly clock: Clock;
  private readonly tasks = new Map<string, Task>();
  private readonly events = new Map<string, TaskEvent[]>();
  private readonly entries: ContextEntry[] = [];
  private readonly entriesByTask = new Map<string, ContextEntry[]>();
  private nextEntryId = 1;
  private readonly journal: UndoJournal;

  /** @param options - see {@link InMemoryStateMachineOptions}. */
  constructor(options: InMemoryStateMachineOptions = {}) {
    this.clock = checkedClock(options.clock ?? systemClock, 'options.clock');
    this.journal = options.journal ?? new UndoJournal();
  }

  /** Stores `task`, recording how to put back what it replaced. */
  private putTask(task: Task): void {
    const previous = this.tasks.get(task.id);
    this.tasks.set(task.id, task);
    this.journal.record(() => {
      if (previous) this.tasks.set(task.id, previous);
      else this.tasks.delete(task.id);
    });
  }

  getTask(taskId: string): Task | undefined {
    assertNonEmptyString(taskId, 'taskId');
    return this.tasks.get(taskId);
  }

  listTasks(filter: { statuses?: readonly TaskStatus[] } = {}): Task[] {
    const all = [...this.tasks.values()];
    return filter.statuses ? all.filter((task) => filter.statuses?.includes(task.status)) : all;
  }

  upsertTask(input: TaskInput): Task {
    input = validateTaskInput(input);
    const now = this.clock.now();
    const existing = this.tasks.get(input.id);
    const task: Task = Object.freeze({
      id: input.id,
      title: input.title ?? existing?.title ?? '',
      status: existing?.status ?? input.status ?? 'pending',
      blockedReason: existing?.blockedReason ?? null,
      metadata: Object.freeze(structuredClone(input.metadata ?? existing?.metadata ?? {})),
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    });
    this.putTask(task);
    if (!existing)
      this.appendEvent({
        taskId: task.id,
        fromStatus: null,
        toStatus: task.status,
        reason: 'created',
        timestamp: now,
      });
    return task;
  }

  transition(taskId: string, status: TaskStatus, reason: string): Task {
    assertNonEmptyString(taskId, 'taskId');
    assertTaskStatus(status, 'status');
    assertNonEmptyString(reason, 'reason');
    const existing = this.tasks.get(taskId);
    if (!existing)
      throw new StorageError('task_not_found', `transition: task ${JSON.stringify(taskId)} does not exist`);
    const now = this.clock.now();
    const task: Task = Object.freeze({
      ...existing,
      status,
      blockedReason: status === 'blocked' ? reason : null,
      updatedAt: now,
    });
    this.putTask(task);
    this.appendEvent({ taskId, fromStatus: existing.status, toStatus: status, reason, timestamp: now });
    return task;
  }

  listTaskEvents(taskId: string): TaskEvent[] {
    return [...(this.events.get(taskId) ?? [])];
  }

  addContextEntry(input: ContextEntryInput): ContextEntry {
    input = validateContextEntryInput(input);
    const entry: ContextEntry = Object.freeze({
      id: String(this.nextEntryId++),
      timestamp: this.clock.now(),
      entryType: input.entryType,
      topic: input.topic,
      content: input.content,
      relatedTasks: Object.freeze([...(input.relatedTasks ?? [])]),
      confidence: input.confidence ?? 1,
      metadata: Object.freeze(structuredClone(input.metadata ?? {})),
    });
    this.entries.push(entry);
    const taskIds = [...new Set(entry.relatedTasks)];
    for (const taskId of taskIds) {
      const list = this.entriesByTask.get(taskId);
      if (list) list.push(entry);
      else this.entriesByTask.set(taskId, [entry]);
    }
    this.journal.record(() => {
      this.entries.pop();
      this.nextEntryId--;
      for (const taskId of taskIds) {
        const list = this.entriesByTask.get(taskId) as ContextEntry[];
        list.pop();
        if (list.length === 0) this.entriesByTask.delete(taskId);
      }
    });
    return entry;
  }

  listContextEntries(query: ContextEntryQuery = {}): ContextEntry[] {
    validateContextEntryQuery(query);
    const source = query.taskId === undefined ? this.entries : (this.entriesByTask.get(query.taskId) ?? []);
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    const result: ContextEntry[] = [];
    // newest first; entries are appended in time order, ids break ties
    for (let i = source.length - 1; i >= 0 && result.length < limit; i--) {
      const entry = source[i] as ContextEntry;
      if (query.since !== undefined && entry.timestamp < query.since) continue;
      if (query.topics && !query.topics.includes(entry.topic)) continue;
      result.push(entry);
    }
    return result;
  }

  /**
   * Runs `fn` as one transaction: when it throws, every write it made (here and in the ports sharing
   * this state machine's journal) is reverted and the error propagates. Nested calls are savepoints.
   */
  transaction<T>(fn: () => T): T {
    return this.journal.run(fn);
  }

  private appendEvent(event: TaskEvent): void {
    const list = this.events.get(event.taskId);
    const frozen = Object.freeze(event);
    if (list) list.push(frozen);
    else this.events.set(event.taskId, [frozen]);
    this.journal.record(() => {
      const events = this.events.get(event.taskId) as TaskEvent[];
      events.pop();
      if (events.length === 0) this.events.delete(event.taskId);
    });
  }
}
