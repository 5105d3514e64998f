export type { Attempt, AttemptSummary } from './attempt.js';
export { type Clock, ManualClock, systemClock } from './clock.js';
export {
  CONTEXT_ENTRY_TYPES,
  type ContextEntry,
  type ContextEntryInput,
  type ContextEntryQuery,
  type ContextEntryType,
  RECOVERY_TOPICS,
  type RecoveryTopic,
} from './contextEntry.js';
export {
  ConfigurationError,
  InvalidInputError,
  LoopGuardError,
  type LoopGuardErrorCode,
  RunError,
  StorageError,
} from './errors.js';
export { InMemoryAttemptStore } from './InMemoryAttemptStore.js';
export { InMemoryStateMachine, type InMemoryStateMachineOptions } from './InMemoryStateMachine.js';
export {
  type LoopDetectionResult,
  LoopDetector,
  type LoopDetectorEvents,
  type RecoveryOutcome,
} from './LoopDetector.js';
export { type Logger, silentLogger } from './logger.js';
export {
  AGGRESSIVE_PRESET,
  CONSERVATIVE_PRESET,
  LOOP_DETECTOR_PRESETS,
  type LoopDetectorOptions,
  loopDetectorOptionsSchema,
  RECOMMENDED_PRESET,
} from './loopDetectorOptions.js';
export {
  judgeRuns,
  type LoopThresholds,
  type LoopType,
  type LoopVerdict,
  orderInsensitiveKey,
  type Recommendation,
  type RunState,
  runsOf,
  stepRuns,
} from './loopRules.js';
export { parseOptions } from './parseOptions.js';
export type { AttemptStore, StateMachine } from './ports.js';
export { UNBLOCK_PERMISSIONS } from './recoveryContent.js';
export { SafeEmitter } from './SafeEmitter.js';
export { validateContextEntryInput, validateTaskInput } from './stateMachineInput.js';
export {
  isTaskStatus,
  TASK_STATUSES,
  type Task,
  type TaskEvent,
  type TaskInput,
  type TaskStatus,
} from './task.js';
export {
  assertFiniteNumber,
  assertNonEmptyString,
  assertStringArray,
  assertTaskStatus,
  describeValue,
} from './validate.js';
