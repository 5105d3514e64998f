import type { GuardMonitorSnapshot, GuardName } from '@loopguard/core/guards';

/**
 * A safety guard that stopped an iteration session (event `guardTriggered`).
 * @example { sessionId: '1', taskId: 'T1', guard: 'consecutive_failures', message: 'Circuit breaker OPEN: …', iteration: 4, at: 1760825000000 }
 */
export interface IterationGuardTrigger {
  /** The session stopped. */
  sessionId: string;
  /** Its task (now `blocked`). */
  taskId: string;
  /** The guard that blocked, in the guards' own names (`consecutive_failures` is seed 000's `circuit_breaker`). */
  guard: GuardName;
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
 * @example { checks: 12, blocked: 1, byGuard: { consecutive_failures: 1 }, lastBlock: { sessionId: '1', taskId: 'T1', guard: 'consecutive_failures', message: '…', iteration: 4, at: 1760825000000 }, monitor: { runs: 3, … } }
 */
export interface GuardStatistics {
  /** Safety checks run. */
  checks: number;
  /** Checks that blocked an iteration. */
  blocked: number;
  /** Blocks per guard name (the guards' own names, as in `GuardSet`). */
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
