import type { DatabaseReader } from './DatabaseReader.js';
import type { LiveFeed } from './LiveFeed.js';

/**
 * Options of {@link followDatabase}.
 * @example { intervalMs: 500 }
 */
export interface FollowDatabaseOptions {
  /** How often the file is polled for new attempts and recoveries, ms. @default 500 */
  intervalMs?: number;
}

/**
 * Follows a database file that another process writes: every `intervalMs` it reads the attempts
 * and recovery entries added since the last poll (by id, through the primary keys) and emits them
 * on `feed` (`attemptsRecorded`, `breakerStateChanged` per breaker transition of a `loopguard run`, then
 * `loopDetected` and `recoveryApplied` per recovery).
 * Attempts are counted by the growth of the highest attempt id, so attempts appended and
 * deleted between two polls are not seen. Returns a function that stops following.
 * @example
 * const stop = followDatabase(reader, feed, { intervalMs: 250 });
 */
export function followDatabase(
  reader: DatabaseReader,
  feed: LiveFeed,
  options: FollowDatabaseOptions = {},
): () => void {
  let lastEntryId = reader.maxEntryId();
  let lastAttemptId = reader.maxAttemptId();
  let lastTransitionId = reader.maxBreakerTransitionId();
  const poll = (): void => {
    const attemptId = reader.maxAttemptId();
    if (attemptId > lastAttemptId) {
      feed.emit('attemptsRecorded', { count: attemptId - lastAttemptId });
    }
    // Recoveries delete a task's attempts, so the highest id can go down; new ids continue from it.
    lastAttemptId = attemptId;
    for (const transition of reader.breakerTransitionsAfter(lastTransitionId, 500)) {
      feed.emit('breakerStateChanged', { ...transition });
      lastTransitionId = transition.id;
    }
    for (;;) {
      const batch = reader.recoveriesAfter(lastEntryId, 500);
      for (const recovery of batch) {
        if (recovery.loopType !== null && recovery.taskId !== null) {
          feed.emit('loopDetected', {
            taskId: recovery.taskId,
            loopType: recovery.loopType,
            attemptCount: recovery.attemptCount ?? 0,
            at: recovery.timestamp,
          });
        }
        feed.emit('recoveryApplied', recovery);
      }
      const last = batch.at(-1);
      if (last !== undefined) lastEntryId = Number(last.id);
      if (batch.length < 500) break;
    }
  };
  const timer = setInterval(() => {
    try {
      poll();
    } catch {
      // A busy or briefly locked file: the next poll reads what this one missed.
    }
  }, options.intervalMs ?? 500);
  timer.unref();
  return () => clearInterval(timer);
}
