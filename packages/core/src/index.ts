/**
 * `@loopguard/core`: what an embedder of the attempt-level detector uses — `LoopDetector` (sync: memory,
 * SQLite) and `SharedLoopDetector` (async: PostgreSQL), their storage ports and in-memory adapters,
 * the model they store, errors and clocks. Each other capability has its own entry:
 * `@loopguard/core/steps`, `/breaker`, `/guards`, `/iteration`, `/seeds` and `/testing`.
 * @packageDocumentation
 */

export type { Detector } from './attempts/Detector.js';
export type {
  AttemptWithTransition,
  EscalationResolved,
  LoopDetectorEvents,
  RecoveryRecord,
  StatusPage,
  StatusPageQuery,
} from './attempts/detectorTypes.js';
export type { ResolveEscalationInput } from './attempts/escalation.js';
export { LoopDetector } from './attempts/LoopDetector.js';
export type { LoopDetectionResult } from './attempts/loopDetection.js';
export { LOOP_DETECTOR_PRESETS, type LoopDetectorOptions } from './attempts/loopDetectorOptions.js';
export type { LoopType, Recommendation } from './attempts/loopVerdict.js';
export type { RecoveryOutcome } from './attempts/recoveryOutcome.js';
export { SharedLoopDetector, type SharedLoopDetectorOptions } from './attempts/SharedLoopDetector.js';
export { type Clock, ManualClock, systemClock } from './kernel/clock.js';
export {
  ConfigurationError,
  InvalidInputError,
  LoopGuardError,
  type LoopGuardErrorCode,
  RunError,
  StorageError,
} from './kernel/errors.js';
export { InMemoryAttemptStore } from './memory/InMemoryAttemptStore.js';
export { InMemoryStateMachine, type InMemoryStateMachineOptions } from './memory/InMemoryStateMachine.js';
export { InMemoryStorage, type InMemoryStorageOptions } from './memory/InMemoryStorage.js';
export { asyncInMemoryStorage } from './memory/toAsyncStorage.js';
export type {
  Attempt,
  AttemptSummary,
  AttemptSummaryPage,
  AttemptSummaryPageQuery,
} from './model/attempt.js';
export {
  CONTEXT_ENTRY_TYPES,
  type ContextEntry,
  type ContextEntryInput,
  type ContextEntryQuery,
  type ContextEntryType,
  RECOVERY_TOPICS,
} from './model/contextEntry.js';
export { SIZE_LIMITS } from './model/sizeLimits.js';
export { MAX_METADATA_DEPTH } from './model/storableJson.js';
export {
  isTaskStatus,
  TASK_STATUSES,
  type Task,
  type TaskEvent,
  type TaskInput,
  type TaskStatus,
} from './model/task.js';
export type {
  AsyncAttemptStore,
  AsyncStateMachine,
  AsyncStorage,
  AsyncStoragePorts,
  AsyncTransactionOptions,
} from './storage/asyncPorts.js';
export type { AttemptStore, StateMachine } from './storage/ports.js';
export { type Storage, type StoragePorts, storageOf } from './storage/storage.js';
