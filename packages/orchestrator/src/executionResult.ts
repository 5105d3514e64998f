import type {
  Attempt,
  ContextEntry,
  LoopDetectionResult,
  LoopGuardError,
  RecoveryOutcome,
  TaskStatus,
} from '@loopguard/core';
import type { SpendVerdict } from '@loopguard/core/spend';
import type { Decision, QualityVerdict } from './ports.js';

/**
 * What happened in one tick, beyond success and action.
 * @example { loopRecoveryApplied: true, loopDetection: { … }, recovery: { applied: true, action: 'force_next', … } }
 */
export interface TickDetails {
  /** The seed's flag: a loop was found before execution, its recovery applied and execution skipped. */
  loopRecoveryApplied?: boolean;
  /** The detection that found the loop (only when `loopRecoveryApplied`). */
  loopDetection?: LoopDetectionResult;
  /** The recovery written (only when `loopRecoveryApplied`). */
  recovery?: RecoveryOutcome;
  /**
   * Why the task was not run: `escalated` — it has an open escalation (its `loop_escalation` entry is
   * in `escalation`) and waits for `detector.resolveEscalation()`; nothing was executed or recorded.
   * `spend_budget` — the task's spend budget (or the run's) is spent (the stop is in `spend`).
   */
  skipped?: 'escalated' | 'spend_budget';
  /** The open escalation that made the tick skip the task (only when `skipped`). */
  escalation?: ContextEntry;
  /** The session id of the attempt, `session_<tickNumber>`. */
  sessionId?: string;
  /** The status the executor reported. */
  status?: TaskStatus;
  /** The work the executor reported. */
  completedWork?: string[];
  /** The blockers the executor reported. */
  blockers?: string[];
  /** Extra details the executor reported. */
  executorDetails?: Record<string, unknown>;
  /** The attempt recorded after execution (also after a failed execution: the error attempt). */
  attempt?: Attempt;
  /** The spend guard's warning or stop after this attempt's usage, or the stop that skipped the task. */
  spend?: SpendVerdict;
  /** The quality monitor's verdict, when one is configured. */
  quality?: QualityVerdict;
  /** Why an idle decision was taken. */
  idleReason?: string;
  /** Why the tick failed (only when `success` is `false`). */
  error?: LoopGuardError;
}

/**
 * What `OrchestratorLoop.tick()` returns: the seed's `ExecutionResult`.
 * @example { success: true, action: { type: 'run_task', task: { id: 'T3.4.2' } }, duration: 1200, tickNumber: 4, details: { loopRecoveryApplied: true } }
 */
export interface ExecutionResult {
  /** Whether the tick did what it decided (a loop recovery counts as success). */
  success: boolean;
  /** The policy's decision; `null` when the tick failed before deciding. */
  action: Decision | null;
  /** Time the tick took, ms (from the injected clock). */
  duration: number;
  /** The tick's number, starting at 1. */
  tickNumber: number;
  /** When the tick started, epoch ms. */
  startedAt: number;
  /** See {@link TickDetails}. */
  details: TickDetails;
}
