/**
 * `@loopguard/core/internal`: what loopguard's sibling packages (sqlite, postgres, orchestrator,
 * server, cli) share with core but an embedder does not need: validation helpers, option schemas,
 * the guard strategies, signature helpers and the pure rules behind the detectors. No stability
 * promise: names here may change in any release.
 *
 * @example
 * import { judgeAttempts, planRecovery } from '@loopguard/core/internal';
 * @packageDocumentation
 */

export {
  ESCALATION_TOPICS,
  openEscalationOf,
  planResolution,
  RESOLUTION_TOPIC,
} from './attempts/escalation.js';
// --- storage seam: pure judging and recovery planning shared by every detector shell ---
export {
  type DetectionOptions,
  detectionResultOf,
  grantActiveOf,
  type JudgeInput,
  judgeAttempts,
} from './attempts/loopDetection.js';
export {
  AGGRESSIVE_PRESET,
  CONSERVATIVE_PRESET,
  loopDetectorOptionsSchema,
  RECOMMENDED_PRESET,
} from './attempts/loopDetectorOptions.js';
export {
  blockersKeyOf,
  judgeRuns,
  type LoopThresholds,
  orderInsensitiveKey,
  type RunState,
  runsOf,
  stepRuns,
} from './attempts/loopRules.js';
export type { LoopVerdict } from './attempts/loopVerdict.js';
export { UNBLOCK_PERMISSIONS } from './attempts/recoveryContent.js';
export { type PlannedTransition, planRecovery, type RecoveryPlan } from './attempts/recoveryPlan.js';
export {
  findTaskCycle,
  planCycleRecovery,
  type TaskCycle,
  type TaskCycleOptions,
} from './attempts/taskCycle.js';
// --- stagnation circuit breaker ---
export {
  DEFAULT_COOLDOWN_MS,
  DEFAULT_SAME_ERROR_THRESHOLD,
  DEFAULT_STAGNATION_THRESHOLD,
  DEFAULT_TASK_THRESHOLD,
  type ResolvedStagnationBreakerOptions,
  stagnationBreakerOptionsSchema,
} from './breaker/breakerOptions.js';
export { breakerSnapshotSchema, parseBreakerSnapshot } from './breaker/breakerSnapshot.js';
export { BREAKER_STATES } from './breaker/breakerTypes.js';
export { CompletionWithoutEvidenceSignal } from './breaker/CompletionWithoutEvidenceSignal.js';
export {
  DEFAULT_INFRASTRUCTURE_BACKOFF_MS,
  DEFAULT_INFRASTRUCTURE_MAX_BACKOFF_MS,
  infrastructureWaitMs,
  resetTimeOf,
} from './breaker/infrastructureWait.js';
export { NoFileChangesSignal } from './breaker/NoFileChangesSignal.js';
export { SameErrorSignal } from './breaker/SameErrorSignal.js';
export { type SignalJudgement, type SignalSnapshot, StagnationSignal } from './breaker/StagnationSignal.js';
export { StepLoopStoppedSignal } from './breaker/StepLoopStoppedSignal.js';
export { TaskNotProgressingSignal } from './breaker/TaskNotProgressingSignal.js';
export {
  ConsecutiveFailuresGuard,
  DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
} from './guards/ConsecutiveFailuresGuard.js';
export { elapsedMinutes } from './guards/checkSafetyGuards.js';
export { countConsecutiveErrors, detectRepeatedOutput } from './guards/detectRepeatedOutput.js';
export { summarizeOutput } from './guards/escalationReport.js';
export { remainingIterationExtension } from './guards/extendBudget.js';
export { GUARD_ORDER } from './guards/Guard.js';
export { guardSetOptionsSchema } from './guards/guardSetOptions.js';
export {
  analyseIteration,
  type GuardStateInput,
  guardHistoryOf,
  guardStateOf,
  runGuards,
} from './guards/guardState.js';
export { MaxIterationsGuard } from './guards/MaxIterationsGuard.js';
export { MaxRuntimeGuard } from './guards/MaxRuntimeGuard.js';
export {
  QUALITY_REGRESSION_WINDOW,
  type QualityAssessment,
  QualityRegressionGuard,
  qualityScore,
  trailingDeclines,
} from './guards/QualityRegressionGuard.js';
export { RepeatedOutputGuard } from './guards/RepeatedOutputGuard.js';
export { seed000Verdict } from './guards/runSafetyChecks.js';
export {
  LOOP_THRESHOLD,
  MAX_ITERATIONS_CAP,
  MAX_RUNTIME_MINUTES_CAP,
  resolveSafetyConfig,
  safetyConfigSchema,
} from './guards/safetyConfig.js';
export { guardNameOf, SEED_000_NAMES, SEED_001_NAMES } from './guards/seedGuardNames.js';
export { isExempt } from './guards/signatureExemption.js';
export {
  DEFAULT_THRASHING_THRESHOLD,
  filesModifiedAtLeast,
  filesOf,
  ThrashingGuard,
} from './guards/ThrashingGuard.js';
export { detectPattern } from './iteration/detectPattern.js';
export { iterationCheckSchema } from './iteration/iterationCheck.js';
export {
  iterationControlOptionsSchema,
  resolveIterationControlOptions,
} from './iteration/iterationControlOptions.js';
export { priorityOf, reviewItems } from './iteration/reviewFindings.js';
export { describeFailure } from './iteration/synthesizeFeedback.js';
export { testFindings } from './iteration/testFindings.js';
export { checkedClock } from './kernel/clock.js';
export { silentLogger } from './kernel/logger.js';
export { clockSchema, loggerSchema, portSchema } from './kernel/optionSchemas.js';
export { parseOptions } from './kernel/parseOptions.js';
export { SafeEmitter } from './kernel/SafeEmitter.js';
export { UndoJournal } from './kernel/UndoJournal.js';
export {
  assertFiniteNumber,
  assertNonEmptyString,
  assertStringArray,
  describeValue,
} from './kernel/validate.js';
export { type AsyncTransactionRunner, toAsyncStorage } from './memory/toAsyncStorage.js';
export { newAttempt, validateAttemptInput } from './model/attemptInput.js';
export { nextAttemptTimestamp } from './model/attemptOrder.js';
export { isSealedAttempt, sealAttempt } from './model/sealedAttempts.js';
export { assertTaskId, boundedList, evidenceAttempt } from './model/sizeLimits.js';
export {
  validateContextEntryInput,
  validateContextEntryQuery,
  validateTaskInput,
} from './model/stateMachineInput.js';
export { storableCopy, storableMetadata } from './model/storableJson.js';
// --- attempt construction and validation shared by the detector shells and the adapters ---
export { assertTaskStatus } from './model/task.js';
export { type InfrastructureKind, infrastructureKindOf } from './signatures/infrastructure.js';
export { normalizeVolatile, stripAnsi } from './signatures/normalizeVolatile.js';
export {
  type OutputSignature,
  type OutputSignatureBasis,
  outputSignature,
} from './signatures/outputSignature.js';
// --- linear-time parsing of agent output ---
export { MAX_PARSED_LINE_LENGTH, MAX_PARSED_LINES_PER_END, parsedLines } from './signatures/parsedLines.js';
export { failingTestNames } from './signatures/testNames.js';
// --- step-level detection pieces for the hooks (one process per tool call) ---
export { actionKey } from './steps/stepKeys.js';
export { type StepLoopEntryContext, stepLoopEntry } from './steps/stepLoopEntry.js';
export {
  CHECKPOINT_TRIGGERS,
  ITERATION_SESSION_STATUSES,
  validateIterationCheckpointInput,
  validateIterationRecordInput,
  validateIterationSessionInput,
  validateSessionEnd,
} from './storage/iterationStore.js';
export {
  ATTEMPT_STORE_METHODS,
  attemptStoreSchema,
  ITERATION_STORE_METHODS,
  iterationStoreSchema,
  STATE_MACHINE_METHODS,
  stateMachineSchema,
  storageSchema,
} from './storage/portSchemas.js';
export { isStorage } from './storage/storage.js';
