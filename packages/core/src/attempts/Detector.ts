import type { SafeEmitter } from '../kernel/SafeEmitter.js';
import type { Attempt, AttemptSummary } from '../model/attempt.js';
import type { ContextEntry } from '../model/contextEntry.js';
import type { Task } from '../model/task.js';
import type { ResolvedDetectorOptions } from './detectorSettings.js';
import type {
  AttemptWithTransition,
  EscalationResolved,
  LoopDetectorEvents,
  RecoveryQuery,
  RecoveryRecord,
} from './detectorTypes.js';
import type { ResolveEscalationInput } from './escalation.js';
import type { LoopDetectionResult } from './loopDetection.js';
import type { RecoveryOutcome } from './recoveryOutcome.js';

/** A value, or a promise of it: the synchronous runner answers at once, the asynchronous one later. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * What both attempt-level runners offer — `LoopDetector` (synchronous: memory, SQLite) and
 * `SharedLoopDetector` (asynchronous: PostgreSQL) — so that a caller such as `OrchestratorLoop`
 * awaits every answer and works with either.
 * @example
 * async function tick(detector: Detector, taskId: string) {
 *   const result = await detector.detectLoop(taskId);
 *   if (result.isLooping) await detector.applyRecovery(result);
 * }
 */
export interface Detector extends Pick<SafeEmitter<LoopDetectorEvents>, 'on' | 'off' | 'once'> {
  /** The options in force, defaults applied. */
  readonly options: Omit<ResolvedDetectorOptions, 'sharedStorage'>;
  /** Records an attempt at a task (the seed's signature). */
  recordAttempt(
    taskId: string,
    status: string,
    blockers: readonly string[],
    completedWork: readonly string[],
    sessionId?: string,
  ): MaybePromise<Attempt>;
  /** Records an attempt and moves its task to the attempt's status, in one transaction. */
  recordAttemptWithTransition(
    input: AttemptWithTransition,
  ): MaybePromise<{ attempt: Attempt; task: Task | null }>;
  /** Judges the task's attempts inside the window (and the cross-task cycles). */
  detectLoop(taskId: string): MaybePromise<LoopDetectionResult>;
  /** Applies the recovery a detection recommends; exactly one of racing callers writes it. */
  applyRecovery(result: LoopDetectionResult): Promise<RecoveryOutcome>;
  /** Judges against storage and writes the recovery when the task loops, in one transaction. */
  recoverIfLooping(taskId: string): MaybePromise<RecoveryOutcome>;
  /** The task's open escalation, or `null`. */
  openEscalation(taskId: string): MaybePromise<ContextEntry | null>;
  /** Releases an escalated task. */
  resolveEscalation(taskId: string, input: ResolveEscalationInput): MaybePromise<EscalationResolved>;
  /** The recoveries written so far, newest first. */
  listRecoveries(query?: RecoveryQuery): MaybePromise<RecoveryRecord[]>;
  /** Per task with attempts inside the window: the seed's dashboard shape. */
  getStatus(): MaybePromise<Record<string, AttemptSummary>>;
  /** Forgets a task's attempts (in storage too). */
  clearTask(taskId: string): MaybePromise<number>;
}
