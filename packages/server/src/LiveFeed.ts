import type { RecoveryView } from '@loopguard/core/internal';
import { EventEmitter } from 'eventemitter3';

/**
 * The stagnation breaker's state as the server shows it (`/status`, the dashboard, events).
 * @example { state: 'OPEN', reason: 'no file changes for 3 iterations', since: 1760825000000 }
 */
export interface BreakerView {
  /** `CLOSED`, `HALF_OPEN` or `OPEN`. */
  state: string;
  /** Anything else the breaker reports (reason, counters, times). */
  [key: string]: unknown;
}

/**
 * The live events the server streams on `GET /events` and counts in `/metrics`.
 * @example feed.on('recoveryApplied', (recovery) => console.log(recovery.action));
 */
export interface LiveFeedEvents {
  /** `count` attempts were recorded. */
  attemptsRecorded: [info: { count: number }];
  /** A loop was detected. */
  loopDetected: [info: { taskId: string; loopType: string; attemptCount: number; at: number }];
  /** A recovery was written. */
  recoveryApplied: [recovery: RecoveryView];
  /** An iteration safety guard stopped a session. */
  guardTriggered: [info: { taskId: string; guard: string; message: string; at: number }];
  /** The stagnation breaker changed state. */
  breakerStateChanged: [breaker: BreakerView];
  /** A tick finished (successfully or not) in `durationMs`. */
  tickFinished: [info: { durationMs: number; success: boolean }];
}

/**
 * The hub between the sources of live events (in-process emitters or a database follower) and
 * their consumers (metrics, event streams).
 * @example
 * const feed = new LiveFeed();
 * feed.emit('attemptsRecorded', { count: 1 });
 */
export class LiveFeed extends EventEmitter<LiveFeedEvents> {}
