import type {
  Attempt,
  LoopDetectionResult,
  LoopGuardError,
  RecoveryOutcome,
  StorageError,
} from '@loopguard/core';
import type { ExecutionResult } from './executionResult.js';
import type { IterationGuardTrigger } from './guardStatistics.js';
import type { QualityVerdict } from './ports.js';
import type { StopReason } from './tickScheduler.js';

/**
 * Events of {@link OrchestratorLoop} (eventemitter3, typed). Listeners cannot break the loop: one
 * that throws is logged and the others still run.
 *
 * @example
 * loop.on('tickFailed', (result, error) => console.error(`tick ${result.tickNumber}: ${error.code} ${error.message}`));
 * loop.on('error', (error) => alertOps(error)); // storage errors
 */
export interface OrchestratorLoopEvents {
  /** `start()` began scheduling ticks. */
  started: [info: { at: number }];
  /** Scheduling stopped: asked to (`requested`), too many idle ticks (`idle`), or a storage error. */
  stopped: [info: { at: number; reason: StopReason }];
  /** A tick finished successfully. */
  tickCompleted: [result: ExecutionResult];
  /** A tick failed (executor fault, bad decision, storage error...). */
  tickFailed: [result: ExecutionResult, error: LoopGuardError];
  /** The detector found a loop (passthrough from `LoopDetector`). */
  loopDetected: [result: LoopDetectionResult];
  /** The detector wrote a recovery (passthrough from `LoopDetector`). */
  recoveryApplied: [outcome: Extract<RecoveryOutcome, { applied: true }>];
  /** An attempt was recorded (passthrough from `LoopDetector`). */
  attemptRecorded: [attempt: Attempt];
  /** An iteration safety guard stopped a session (passthrough from the `guardStatistics` source). */
  guardTriggered: [trigger: IterationGuardTrigger];
  /** The quality monitor reviewed a run. */
  qualityReviewed: [taskId: string, verdict: QualityVerdict];
  /** A storage adapter failed. Never swallowed: also logged, and `tick()` rejects with it. */
  error: [error: StorageError];
}
