import { type FeedPosition, type StatusReader, startsLoop } from '@loopguard/core/internal';
import { checkWholeNumber } from './handlerOptions.js';
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

/** A running follower of a store. */
export interface StoreFollower {
  /**
   * Reads the store now and emits what was written since the last read: settles once everything
   * committed before the call is on the feed (so that `/metrics` counts what `/recoveries` shows).
   * Calls while a read runs share the next one. Rejects with the store's error when it cannot be read.
   */
  catchUp(): Promise<void>;
  /** Stops following. */
  stop(): void;
}

/**
 * Follows a store that other processes write (a cursor poll): every `intervalMs`, and whenever
 * asked to catch up, it reads what was written after the last position (by id, through the
 * primary keys) and emits it on `feed`: `attemptsRecorded`, `breakerStateChanged` per breaker
 * transition, then per recovery `loopDetected` (when it begins a loop: a stop that follows its
 * nudge is the same loop) and `recoveryApplied`. Reads never overlap; a failed read (a busy file, a
 * lost connection) is retried at the next interval from the same position.
 * @throws ConfigurationError when `intervalMs` is not a whole number of at least 1.
 * @example
 * const follower = followReader(reader, await reader.feedPosition(), feed, { intervalMs: 250 });
 * await follower.catchUp(); // before serving /metrics
 */
export function followReader(
  reader: StatusReader,
  start: FeedPosition,
  feed: LiveFeed,
  options: FollowReaderOptions = {},
): StoreFollower {
  checkWholeNumber('intervalMs', options.intervalMs, 1);
  let position = start;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  const poll = async (): Promise<void> => {
    for (;;) {
      const batch = await reader.feedAfter(position, BATCH);
      if (stopped) return;
      if (batch.attemptsAdded > 0) feed.emit('attemptsRecorded', { count: batch.attemptsAdded });
      for (const transition of batch.breakerTransitions) feed.emit('breakerStateChanged', { ...transition });
      for (const recovery of batch.recoveries) {
        if (recovery.loopType !== null && recovery.taskId !== null && startsLoop(recovery)) {
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
  /** A read that starts now, or right after the one running (which may have begun before the call). */
  const read = (): Promise<void> => {
    if (running === undefined) {
      running = poll().finally(() => {
        running = undefined;
      });
      return running;
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return read();
      });
    return next;
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      read()
        .catch(() => undefined) // the next read gets what this one missed
        .finally(schedule);
    }, options.intervalMs ?? 500);
    timer.unref();
  };
  schedule();
  return {
    catchUp: read,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
