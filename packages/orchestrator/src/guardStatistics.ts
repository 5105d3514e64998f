import type { GuardMonitorSnapshot } from '@loopguard/core';

/**
 * A safety guard that stopped an iteration session (event `guardTriggered`).
 * @example { sessionId: '1', taskId: 'T1', guard: 'circuit_breaker', message: 'Circuit breaker OPEN: …', iteration: 4, at: 1760825000000 }
 */
export interface IterationGuardTrigger {
  /** The session stopped. */
  sessionId: string;
  /** Its task (now `blocked`). */
  taskId: string;
  /** The guard that blocked (seed 000's `blockedBy`). */
  guard: string;
  /** The guard's message. */
  message: string;
  /** The iteration that was not allowed to run. */
  iteration: number;
  /** When, epoch ms. */
  at: number;
}

/**
 * Counts of iteration safety checks, for `OrchestratorLoop.getStatus().guards` and dashboards.
 *
 * @example { checks: 12, blocked: 1, byGuard: { circuit_breaker: 1 }, lastBlock: { sessionId: '1', taskId: 'T1', guard: 'circuit_breaker', message: '…', iteration: 4, at: 1760825000000 }, monitor: { runs: 3, … } }
 */
export interface GuardStatistics {
  /** Safety checks run. */
  checks: number;
  /** Checks that blocked an iteration. */
  blocked: number;
  /** Blocks per guard name. */
  byGuard: Record<string, number>;
  /** The newest block; `null` when none happened. */
  lastBlock: IterationGuardTrigger | null;
  /**
   * Seed 001's tuning metrics from core's `GuardMonitor` (average iterations to completion, guard
   * trigger frequency, time per iteration...); `null` when the source keeps none.
   */
  monitor: GuardMonitorSnapshot | null;
}

/**
 * Anything that can report {@link GuardStatistics}, for example `IterationSessions`. When it also
 * emits `guardTriggered`, the loop re-emits those events.
 *
 * @example const loop = new OrchestratorLoop({ ...ports, guardStatistics: sessions });
 */
export interface GuardStatisticsSource {
  /** The statistics now (a fresh object). */
  getGuardStatistics(): GuardStatistics;
  /** Subscribes to guard triggers (optional). */
  on?(event: 'guardTriggered', listener: (trigger: IterationGuardTrigger) => void): unknown;
}
