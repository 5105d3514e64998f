/**
 * Counts of iteration safety checks, for `OrchestratorLoop.getStatus().guards` and dashboards.
 *
 * @example { checks: 12, blocked: 1, byGuard: { circuit_breaker: 1 }, lastBlock: { taskId: 'T1', guard: 'circuit_breaker', message: '…', at: 1760825000000 } }
 */
export interface GuardStatistics {
  /** Safety checks run. */
  checks: number;
  /** Checks that blocked an iteration. */
  blocked: number;
  /** Blocks per guard name. */
  byGuard: Record<string, number>;
  /** The newest block; `null` when none happened. */
  lastBlock: { taskId: string; guard: string; message: string; at: number } | null;
}

/**
 * Anything that can report {@link GuardStatistics}, for example `IterationSessions`.
 * @example const loop = new OrchestratorLoop({ ...ports, guardStatistics: sessions });
 */
export interface GuardStatisticsSource {
  /** The statistics now (a fresh object). */
  getGuardStatistics(): GuardStatistics;
}
