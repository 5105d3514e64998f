import { UndoJournal } from '../kernel/UndoJournal.js';
import { assertFiniteNumber, assertLimit } from '../kernel/validate.js';
import type {
  Attempt,
  AttemptSummary,
  AttemptSummaryPage,
  AttemptSummaryPageQuery,
} from '../model/attempt.js';
import { checkStoredAttempt, validatePageQuery } from '../model/attemptInput.js';
import type { AttemptStore } from '../storage/ports.js';

/** Options of {@link InMemoryAttemptStore}. */
export interface InMemoryAttemptStoreOptions {
  /**
   * The undo log shared with other in-memory ports, so that one transaction covers them all
   * ({@link InMemoryStorage} passes its own).
   * @default a journal of its own (writes are never inside a transaction then)
   */
  journal?: UndoJournal;
}

/** A task's attempts, oldest first; `items[head..]` are live. */
interface TaskAttempts {
  items: Attempt[];
  head: number;
}

/**
 * Attempts kept in memory, per task in time order: the default {@link AttemptStore}.
 * A global arrival queue makes `prune` cost what it deletes, not the number of tasks.
 *
 * @example
 * const detector = new LoopDetector(new InMemoryStateMachine(), { attemptStore: new InMemoryAttemptStore() });
 */
export class InMemoryAttemptStore implements AttemptStore {
  private readonly byTask = new Map<string, TaskAttempts>();
  private readonly arrivals: Attempt[] = [];
  private arrivalsHead = 0;
  private readonly journal: UndoJournal;

  /** @param options - see {@link InMemoryAttemptStoreOptions}. */
  constructor(options: InMemoryAttemptStoreOptions = {}) {
    this.journal = options.journal ?? new UndoJournal();
  }

  append(attempt: Attempt): void {
    checkStoredAttempt(attempt, 'attempt');
    this.store(attempt);
  }

  appendMany(attempts: readonly Attempt[]): void {
    attempts.forEach((attempt, i) => {
      checkStoredAttempt(attempt, `attempts[${i}]`);
    });
    for (const attempt of attempts) this.store(attempt);
  }

  private store(attempt: Attempt): void {
    const list = this.byTask.get(attempt.taskId);
    if (list) list.items.push(attempt);
    else this.byTask.set(attempt.taskId, { items: [attempt], head: 0 });
    this.arrivals.push(attempt);
    this.journal.record(() => {
      this.arrivals.pop();
      if (list) list.items.pop();
      else this.byTask.delete(attempt.taskId);
    });
  }

  listSince(taskId: string, since: number): Attempt[] {
    const list = this.byTask.get(taskId);
    if (!list) return [];
    const result: Attempt[] = [];
    for (let i = list.head; i < list.items.length; i++) {
      const attempt = list.items[i] as Attempt;
      if (attempt.timestamp >= since) result.push(attempt);
    }
    return result;
  }

  listRecent(since: number, limit: number): Attempt[] {
    assertFiniteNumber(since, 'since');
    assertLimit(limit, 'limit');
    const recent: Attempt[] = [];
    for (let i = this.arrivals.length - 1; i >= this.arrivalsHead && recent.length < limit; i--) {
      const attempt = this.arrivals[i] as Attempt;
      if (attempt.timestamp >= since && this.isLive(attempt)) recent.push(attempt);
    }
    return recent.reverse().sort((a, b) => a.timestamp - b.timestamp);
  }

  /** Whether `attempt` is still stored (not cleared or pruned). */
  private isLive(attempt: Attempt): boolean {
    const list = this.byTask.get(attempt.taskId);
    return list !== undefined && list.items.indexOf(attempt, list.head) !== -1;
  }

  clear(taskId: string): number {
    const list = this.byTask.get(taskId);
    if (!list) return 0;
    this.byTask.delete(taskId);
    this.journal.record(() => this.byTask.set(taskId, list));
    return list.items.length - list.head;
  }

  prune(before: number, limit: number): number {
    let deleted = 0;
    // inside a transaction, arrays are never compacted, so restoring the heads reverts a prune
    const compact = !this.journal.active;
    const arrivalsHead = this.arrivalsHead;
    this.journal.record(() => {
      this.arrivalsHead = arrivalsHead;
    });
    while (deleted < limit && this.arrivalsHead < this.arrivals.length) {
      const oldest = this.arrivals[this.arrivalsHead] as Attempt;
      if (oldest.timestamp >= before) break;
      this.arrivalsHead++;
      const list = this.byTask.get(oldest.taskId);
      // an attempt of a cleared task is no longer the head of its task's list: nothing to delete
      if (list === undefined || list.items[list.head] !== oldest) continue;
      this.journal.record(() => {
        list.head--;
        this.byTask.set(oldest.taskId, list);
      });
      list.head++;
      deleted++;
      if (list.head === list.items.length) this.byTask.delete(oldest.taskId);
      else if (compact && list.head > 64 && list.head * 2 > list.items.length) {
        list.items.splice(0, list.head);
        list.head = 0;
      }
    }
    if (compact && this.arrivalsHead > 1024 && this.arrivalsHead * 2 > this.arrivals.length) {
      this.arrivals.splice(0, this.arrivalsHead);
      this.arrivalsHead = 0;
    }
    return deleted;
  }

  summarize(since: number): Map<string, AttemptSummary> {
    const summary = new Map<string, AttemptSummary>();
    for (const [taskId, list] of this.byTask) {
      let attemptCount = 0;
      let lastAttempt = Number.NEGATIVE_INFINITY;
      for (let i = list.head; i < list.items.length; i++) {
        const attempt = list.items[i] as Attempt;
        if (attempt.timestamp < since) continue;
        attemptCount++;
        if (attempt.timestamp > lastAttempt) lastAttempt = attempt.timestamp;
      }
      if (attemptCount > 0) summary.set(taskId, { attemptCount, lastAttempt });
    }
    return summary;
  }

  /** Sorts the window's tasks each call: memory is for tests and small embeddings. */
  summarizePage(since: number, query: AttemptSummaryPageQuery): AttemptSummaryPage {
    assertFiniteNumber(since, 'since');
    validatePageQuery(query);
    const all = [...this.summarize(since)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const after = query.cursor;
    const from = after === undefined ? 0 : all.findIndex(([taskId]) => taskId > after);
    const start = from === -1 ? all.length : from;
    const tasks = all.slice(start, start + query.limit);
    const last = tasks[tasks.length - 1];
    return {
      tasks,
      total: all.length,
      nextCursor: last !== undefined && start + tasks.length < all.length ? last[0] : null,
    };
  }
}
