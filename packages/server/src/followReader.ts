import type { FeedPosition, StatusReader } from '@loopguard/core/internal';
import type { LiveFeed } from './LiveFeed.js';

/** Recoveries and transitions read per query while catching up. */
const BATCH = 500;

/**
 * Options of {@link followReader}.
 * @example { intervalMs: 500 }
 */
export interface FollowReaderOptions {
  /** How often the store is read for new attempts, recoveries and breaker transitions, ms. @default 500 */
  intervalMs?: number;
}

/**
 * Follows a store that other processes write (a cursor poll): every `intervalMs` it reads what was
 * written after the last position (by id, through the primary keys) and emits it on `feed`:
 * `attemptsRecorded`, `breakerStateChanged` per breaker transition, then `loopDetected` and
 * `recoveryApplied` per recovery. Reads never overlap; a failed read (a busy file, a lost
 * connection) is retried at the next interval from the same position. Returns a function that stops.
 * @example
 * const stop = followReader(reader, await reader.feedPosition(), feed, { intervalMs: 250 });
 */
export function followReader(
  reader: StatusReader,
  start: FeedPosition,
  feed: LiveFeed,
  options: FollowReaderOptions = {},
): () => void {
  let position = start;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const poll = async (): Promise<void> => {
    for (;;) {
      const batch = await reader.feedAfter(position, BATCH);
      if (stopped) return;
      if (batch.attemptsAdded > 0) feed.emit('attemptsRecorded', { count: batch.attemptsAdded });
      for (const transition of batch.breakerTransitions) feed.emit('breakerStateChanged', { ...transition });
      for (const recovery of batch.recoveries) {
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
      position = batch.position;
      if (!batch.more) return;
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      poll()
        .catch(() => undefined) // the next poll reads what this one missed
        .finally(schedule);
    }, options.intervalMs ?? 500);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
