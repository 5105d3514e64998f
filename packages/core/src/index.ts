export type { Attempt, AttemptSummary } from './attempt.js';
export {
  DEFAULT_COOLDOWN_MS,
  DEFAULT_SAME_ERROR_THRESHOLD,
  DEFAULT_STAGNATION_THRESHOLD,
  DEFAULT_TASK_THRESHOLD,
  type ResolvedStagnationBreakerOptions,
  type StagnationBreakerOptions,
  stagnationBreakerOptionsSchema,
} from './breaker/breakerOptions.js';
// --- stagnation circuit breaker (issue 11) ---
export {
  type BreakerSnapshot,
  breakerSnapshotSchema,
  parseBreakerSnapshot,
} from './breaker/breakerSnapshot.js';
export {
  BREAKER_STATES,
  type BreakerState,
  type BreakerTransition,
  type BreakerVerdict,
  type IterationObservation,
  type IterationProgress,
  type SignalName,
  type SignalReading,
  type SignalStatus,
} from './breaker/breakerTypes.js';
export { CompletionWithoutEvidenceSignal } from './breaker/CompletionWithoutEvidenceSignal.js';
export {
  DEFAULT_INFRASTRUCTURE_BACKOFF_MS,
  DEFAULT_INFRASTRUCTURE_MAX_BACKOFF_MS,
  infrastructureWaitMs,
  resetTimeOf,
} from './breaker/infrastructureWait.js';
export { NoFileChangesSignal } from './breaker/NoFileChangesSignal.js';
export { SameErrorSignal } from './breaker/SameErrorSignal.js';
export { StagnationBreaker, type StagnationBreakerEvents } from './breaker/StagnationBreaker.js';
export { type SignalJudgement, type SignalSnapshot, StagnationSignal } from './breaker/StagnationSignal.js';
export { TaskNotProgressingSignal } from './breaker/TaskNotProgressingSignal.js';
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
export { ConsecutiveFailuresGuard } from './guards/ConsecutiveFailuresGuard.js';
// --- iteration safety guards, error signatures, iteration control (issue 4) ---
export { checkCircuitBreaker, DEFAULT_CIRCUIT_BREAKER_THRESHOLD } from './guards/checkCircuitBreaker.js';
export { checkMaxIterations } from './guards/checkMaxIterations.js';
export {
  checkQualityRegression,
  QUALITY_REGRESSION_WINDOW,
  qualityScore,
  trailingDeclines,
} from './guards/checkQualityRegression.js';
export {
  checkSafetyGuards,
  elapsedMinutes,
  type SafetyGuardName,
  type SafetyGuardResult,
} from './guards/checkSafetyGuards.js';
export {
  checkThrashing,
  DEFAULT_THRASHING_THRESHOLD,
  filesModifiedAtLeast,
  filesOf,
} from './guards/checkThrashing.js';
export { countConsecutiveErrors, detectLoop } from './guards/detectLoop.js';
export {
  type EscalationContext,
  type EscalationReportInput,
  escalationReportFor,
  formatEscalationReport,
  summarizeOutput,
} from './guards/escalationReport.js';
export { type BudgetExtension, extendBudget, remainingIterationExtension } from './guards/extendBudget.js';
export {
  type AnalysedIteration,
  GUARD_ORDER,
  type Guard,
  type GuardIteration,
  type GuardName,
  type GuardState,
  type GuardVerdict,
} from './guards/Guard.js';
export { GuardMonitor, type GuardMonitorSnapshot, type MonitoredGuard } from './guards/GuardMonitor.js';
export {
  type GuardCheckInput,
  GuardSet,
  type GuardSetEvents,
  type GuardSetResult,
  type GuardTrigger,
} from './guards/GuardSet.js';
export {
  type GuardSetOptions,
  guardSetOptionsSchema,
  type ResolvedGuardSetOptions,
} from './guards/guardSetOptions.js';
export type {
  IterationConfig,
  IterationHistoryEntry,
  ValidationFlag,
  ValidationResult,
} from './guards/iterationHistory.js';
export { MaxIterationsGuard } from './guards/MaxIterationsGuard.js';
export { MaxRuntimeGuard } from './guards/MaxRuntimeGuard.js';
export { QualityRegressionGuard } from './guards/QualityRegressionGuard.js';
export { RepeatedOutputGuard } from './guards/RepeatedOutputGuard.js';
export { runSafetyChecks } from './guards/runSafetyChecks.js';
export {
  DEFAULT_CONFIG,
  LOOP_THRESHOLD,
  MAX_ITERATIONS_CAP,
  MAX_RUNTIME_MINUTES_CAP,
  resolveSafetyConfig,
  type SafetyConfig,
  safetyConfigSchema,
} from './guards/safetyConfig.js';
export type {
  CircuitBreakerResult,
  CombinedSafetyResult,
  QualityRegressionResult,
  SafetyBlocker,
  SafetyCheckResult,
  ThrashingResult,
} from './guards/safetyResults.js';
export { isExempt, type SignatureExemption } from './guards/signatureExemption.js';
export { ThrashingGuard } from './guards/ThrashingGuard.js';
export { InMemoryAttemptStore } from './InMemoryAttemptStore.js';
// --- iteration-store port (issue 5) ---
export { InMemoryIterationStore } from './InMemoryIterationStore.js';
export { InMemoryStateMachine, type InMemoryStateMachineOptions } from './InMemoryStateMachine.js';
export { type Decision, decide } from './iteration/decide.js';
export { type AttemptPattern, detectPattern } from './iteration/detectPattern.js';
export {
  type AttemptRecord,
  type IterationCheck,
  iterationCheckSchema,
  parseIterationCheck,
  type ReviewResult,
  type TestResult,
} from './iteration/iterationCheck.js';
export {
  DEFAULT_ITERATION_CONTROL,
  type IterationControlOptions,
  iterationControlOptionsSchema,
  type ResolvedIterationControlOptions,
  resolveIterationControlOptions,
} from './iteration/iterationControlOptions.js';
export {
  formatDecisionYaml,
  parseIterationCheckYaml,
  parseIterationControlYaml,
} from './iteration/iterationYaml.js';
export {
  type FeedbackPriority,
  priorityOf,
  type ReviewItem,
  reviewItems,
} from './iteration/reviewFindings.js';
export { describeFailure, type Feedback, synthesizeFeedback } from './iteration/synthesizeFeedback.js';
export { type TestFindings, testFindings } from './iteration/testFindings.js';
export {
  CHECKPOINT_TRIGGERS,
  type CheckpointTrigger,
  ITERATION_SESSION_STATUSES,
  type IterationCheckpoint,
  type IterationCheckpointInput,
  type IterationRecord,
  type IterationRecordInput,
  type IterationSessionInput,
  type IterationSessionRecord,
  type IterationSessionStatus,
  type IterationStore,
  validateIterationCheckpointInput,
  validateIterationRecordInput,
  validateIterationSessionInput,
  validateSessionEnd,
} from './iterationStore.js';
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
export { clockSchema, loggerSchema, portSchema } from './optionSchemas.js';
export { parseOptions } from './parseOptions.js';
export type { AttemptStore, StateMachine } from './ports.js';
export { UNBLOCK_PERMISSIONS } from './recoveryContent.js';
export { SafeEmitter } from './SafeEmitter.js';
export { type ErrorKind, type ErrorSignature, errorSignature } from './signatures/errorSignature.js';
export { type InfrastructureKind, infrastructureKindOf } from './signatures/infrastructure.js';
export { normalizeVolatile, stripAnsi } from './signatures/normalizeVolatile.js';
export {
  type OutputSignature,
  type OutputSignatureBasis,
  outputSignature,
} from './signatures/outputSignature.js';
export { failingTestNames } from './signatures/testNames.js';
export {
  validateContextEntryInput,
  validateContextEntryQuery,
  validateTaskInput,
} from './stateMachineInput.js';
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
