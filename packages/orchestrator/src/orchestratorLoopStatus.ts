import type { AttemptSummary } from '@loopguard/core';
import type { ExecutionResult } from './executionResult.js';
import type { GuardStatistics } from './guardStatistics.js';
import type { StopReason } from './tickScheduler.js';

/**
 * What {@link OrchestratorLoop.getStatus} returns: the seed's status with the dashboard's
 * `loopDetection` map.
 *
 * @example
 * { running: true, tickCount: 45, loopDetection: { 'T3.4.2': { attemptCount: 2, lastAttempt: 1760825000000 } }, breaker: null, … }
 */
export interface OrchestratorLoopStatus {
  /** Whether ticks are being scheduled (`start()` called and not stopped). */
  running: boolean;
  /** Ticks run so far (scheduled and direct). */
  tickCount: number;
  /** Whether a tick is in progress. */
  ticking: boolean;
  /** When the last finished tick started, epoch ms; `null` before the first. */
  lastTickAt: number | null;
  /** The last finished tick's result; `null` before the first. */
  lastResult: ExecutionResult | null;
  /** Why scheduling last stopped; `null` when it never stopped. */
  lastStopReason: StopReason | null;
  /** The interval until the next timed tick, ms (grows while idle). */
  currentInterval: number;
  /** Idle ticks in a row. */
  idleTicks: number;
  /** Per task with attempts in the detector's window: `{ attemptCount, lastAttempt }` (the seed's dashboard). */
  loopDetection: Record<string, AttemptSummary>;
  /** Iteration guard statistics; `null` without a `guardStatistics` source. */
  guards: GuardStatistics | null;
  /** Reserved for the stagnation circuit breaker's state; `null` for now. */
  breaker: null;
}
