import type { Attempt, AttemptSummary } from './attempt.js';
import type { AttemptStore } from './ports.js';

/**
 * Attempts kept in memory, per task in time order: the default {@link AttemptStore}.
 *
 * @example
 * const detector = new LoopDetector(new InMemoryStateMachine(), { attemptStore: new InMemoryAttemptStore() });
 */
export class InMemoryAttemptStore implements AttemptStore {
  private readonly byTask = new Map<string, Attempt[]>();

  append(attempt: Attempt): void {
    const list = this.byTask.get(attempt.taskId);
    if (list) list.push(attempt);
    else this.byTask.set(attempt.taskId, [attempt]);
  }

  appendMany(attempts: readonly Attempt[]): void {
    for (const attempt of attempts) this.append(attempt);
  }

  listSince(taskId: string, since: number): Attempt[] {
    const list = this.byTask.get(taskId);
    if (!list) return [];
    return list.filter((attempt) => attempt.timestamp >= since);
  }

  clear(taskId: string): number {
    const count = this.byTask.get(taskId)?.length ?? 0;
    this.byTask.delete(taskId);
    return count;
  }

  prune(before: number, limit: number): number {
    let deleted = 0;
    for (const [taskId, list] of this.byTask) {
      if (deleted >= limit) break;
      let cut = 0;
      while (cut < list.length && deleted < limit && (list[cut] as Attempt).timestamp < before) {
        cut++;
        deleted++;
      }
      if (cut === list.length) this.byTask.delete(taskId);
      else if (cut > 0) list.splice(0, cut);
    }
    return deleted;
  }

  summarize(since: number): Map<string, AttemptSummary> {
    const summary = new Map<string, AttemptSummary>();
    for (const [taskId, list] of this.byTask) {
      let attemptCount = 0;
      let lastAttempt = Number.NEGATIVE_INFINITY;
      for (const attempt of list) {
        if (attempt.timestamp < since) continue;
        attemptCount++;
        if (attempt.timestamp > lastAttempt) lastAttempt = attempt.timestamp;
      }
      if (attemptCount > 0) summary.set(taskId, { attemptCount, lastAttempt });
    }
    return summary;
  }
}
