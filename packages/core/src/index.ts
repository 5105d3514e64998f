/**
 * `@loopguard/core`: what an embedder uses — the loop detector and its storage ports, the iteration
 * safety guards, iteration control, errors and clocks. What loopguard's sibling packages share
 * beyond this lives in `@loopguard/core/internal`.
 * @packageDocumentation
 */

// --- sticky escalations and cross-task cycles ---
export type { EscalationResolution, ResolveEscalationInput } from './attempts/escalation.js';
export type {
  AttemptWithTransition,
  EscalationResolved,
  RecoveryRecord,
  StatusPage,
  StatusPageQuery,
} from './attempts/LoopDetector.js';
export {
  type LoopDetectionResult,
  LoopDetector,
  type LoopDetectorEvents,
  type RecoveryOutcome,
} from './attempts/LoopDetector.js';
export { LOOP_DETECTOR_PRESETS, type LoopDetectorOptions } from './attempts/loopDetectorOptions.js';
export type { LoopType, Recommendation } from './attempts/loopVerdict.js';
export { SharedLoopDetector, type SharedLoopDetectorOptions } from './attempts/SharedLoopDetector.js';
// --- stagnation circuit breaker ---
export type { StagnationBreakerOptions } from './breaker/breakerOptions.js';
export type { BreakerSnapshot } from './breaker/breakerSnapshot.js';
export type {
  BreakerState,
  BreakerTransition,
  BreakerVerdict,
  IterationObservation,
  IterationProgress,
  SignalName,
  SignalReading,
  SignalStatus,
} from './breaker/breakerTypes.js';
export { StagnationBreaker, type StagnationBreakerEvents } from './breaker/StagnationBreaker.js';
// --- iteration safety guards, error signatures, iteration control ---
export { checkCircuitBreaker } from './guards/checkCircuitBreaker.js';
export { checkMaxIterations } from './guards/checkMaxIterations.js';
export { checkQualityRegression } from './guards/checkQualityRegression.js';
export {
  checkSafetyGuards,
  type SafetyGuardName,
  type SafetyGuardResult,
} from './guards/checkSafetyGuards.js';
export { checkThrashing } from './guards/checkThrashing.js';
export {
  type EscalationContext,
  type EscalationReportInput,
  escalationReportFor,
  formatEscalationReport,
} from './guards/escalationReport.js';
export { type BudgetExtension, extendBudget } from './guards/extendBudget.js';
export type {
  AnalysedIteration,
  Guard,
  GuardIteration,
  GuardName,
  GuardState,
  GuardVerdict,
} from './guards/Guard.js';
export { GuardMonitor, type GuardMonitorSnapshot, type MonitoredGuard } from './guards/GuardMonitor.js';
export {
  type GuardCheckInput,
  GuardSet,
  type GuardSetEvents,
  type GuardSetResult,
  type GuardTrigger,
} from './guards/GuardSet.js';
export type { GuardSetOptions, ResolvedGuardSetOptions } from './guards/guardSetOptions.js';
export type {
  IterationConfig,
  IterationHistoryEntry,
  ValidationFlag,
  ValidationResult,
} from './guards/iterationHistory.js';
export { runSafetyChecks } from './guards/runSafetyChecks.js';
export { DEFAULT_CONFIG, type SafetyConfig } from './guards/safetyConfig.js';
export type {
  CircuitBreakerResult,
  CombinedSafetyResult,
  QualityRegressionResult,
  SafetyBlocker,
  SafetyCheckResult,
  ThrashingResult,
} from './guards/safetyResults.js';
export type { SignatureExemption } from './guards/signatureExemption.js';
export { decide, type IterationDecision } from './iteration/decide.js';
export type { AttemptPattern } from './iteration/detectPattern.js';
export {
  type AttemptRecord,
  type IterationCheck,
  parseIterationCheck,
  type ReviewResult,
  type TestResult,
} from './iteration/iterationCheck.js';
export {
  DEFAULT_ITERATION_CONTROL,
  type IterationControlOptions,
  type ResolvedIterationControlOptions,
} from './iteration/iterationControlOptions.js';
export {
  formatDecisionYaml,
  parseIterationCheckYaml,
  parseIterationControlYaml,
} from './iteration/iterationYaml.js';
export type { FeedbackPriority, ReviewItem } from './iteration/reviewFindings.js';
export { type Feedback, synthesizeFeedback } from './iteration/synthesizeFeedback.js';
export type { TestFindings } from './iteration/testFindings.js';
export { type Clock, ManualClock, systemClock } from './kernel/clock.js';
export {
  ConfigurationError,
  InvalidInputError,
  LoopGuardError,
  type LoopGuardErrorCode,
  RunError,
  StorageError,
} from './kernel/errors.js';
export type { Logger } from './kernel/logger.js';
export { InMemoryAttemptStore, type InMemoryAttemptStoreOptions } from './memory/InMemoryAttemptStore.js';
// --- iteration-store port ---
export { InMemoryIterationStore } from './memory/InMemoryIterationStore.js';
export { InMemoryStateMachine, type InMemoryStateMachineOptions } from './memory/InMemoryStateMachine.js';
// --- storage seam: the ports that share one store and their transaction ---
export { InMemoryStorage, type InMemoryStorageOptions } from './memory/InMemoryStorage.js';
export { type AsyncInMemoryStorageOptions, asyncInMemoryStorage } from './memory/toAsyncStorage.js';
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
  type RecoveryTopic,
} from './model/contextEntry.js';
// storable metadata and size limits
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
export { type ErrorKind, type ErrorSignature, errorSignature } from './signatures/errorSignature.js';
// --- step-level loop detection ---
export { ClaudeStreamJsonParser } from './steps/ClaudeStreamJsonParser.js';
export { CODEX_TOOLS, CodexJsonParser } from './steps/CodexJsonParser.js';
export { DEFAULT_EXEMPT_COMMANDS, DEFAULT_EXEMPT_TOOLS } from './steps/exemptions.js';
export { GeminiStreamJsonParser } from './steps/GeminiStreamJsonParser.js';
export { isStepLoopDetectionEnabled, setStepLoopDetectionEnabled } from './steps/globalSwitch.js';
export { JsonlStepParser } from './steps/JsonlStepParser.js';
export type { StepLineParser } from './steps/StepLineParser.js';
export {
  STEP_LOOP_TOPICS,
  StepLoopDetector,
  type StepLoopDetectorEvents,
  type StepVerdict,
} from './steps/StepLoopDetector.js';
export type { StepLoopType } from './steps/StepRule.js';
export type { ActionStep, MessageStep, ObservationStep, Step } from './steps/step.js';
export type { StepEvidence } from './steps/stepHistory.js';
export type { StepLoopDetectorOptions } from './steps/stepLoopDetectorOptions.js';
export {
  type SnapshotJson,
  type SnapshotPart,
  STEP_SNAPSHOT_FORMAT,
  STEP_SNAPSHOT_VERSION,
  type StepDetectorSnapshot,
} from './steps/stepSnapshot.js';
// --- asynchronous storage ports and SharedLoopDetector, for workers on several hosts ---
export type {
  AsyncAttemptStore,
  AsyncPort,
  AsyncStateMachine,
  AsyncStorage,
  AsyncStoragePorts,
  AsyncTransactionOptions,
} from './storage/asyncPorts.js';
export type {
  CheckpointTrigger,
  IterationCheckpoint,
  IterationCheckpointInput,
  IterationRecord,
  IterationRecordInput,
  IterationSessionInput,
  IterationSessionRecord,
  IterationSessionStatus,
  IterationStore,
} from './storage/iterationStore.js';
export type { AttemptStore, StateMachine } from './storage/ports.js';
export { type Storage, type StoragePorts, storageOf } from './storage/storage.js';
