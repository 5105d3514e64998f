/**
 * `@loopguard/core/internal`: what loopguard's sibling packages (sqlite, postgres, orchestrator, cli)
 * share with core but an embedder does not need: validation helpers, option schemas, port checks
 * and the pure judgement the adapters run in SQL transactions. No stability promise: names here may
 * change in any release.
 *
 * @example
 * import { checkStoredAttempt } from '@loopguard/core/internal';
 * @packageDocumentation
 */

export { infrastructureWaitMs, resetTimeOf } from './breaker/infrastructureWait.js';
export { seed000Verdict } from './guards/runSafetyChecks.js';
export { SEED_000_NAMES } from './guards/seedGuardNames.js';
export { boundedText } from './kernel/boundedText.js';
export { checkedClock } from './kernel/clock.js';
export { numberOf, recordOf } from './kernel/jsonValues.js';
export { type Logger, silentLogger } from './kernel/logger.js';
export { clockSchema, lazySchema, loggerSchema, portSchema } from './kernel/optionSchemas.js';
export { parseOptions } from './kernel/parseOptions.js';
export { RecentSet } from './kernel/RecentSet.js';
export { SafeEmitter } from './kernel/SafeEmitter.js';
export {
  assertFiniteNumber,
  assertLimit,
  assertNonEmptyString,
  describeValue,
} from './kernel/validate.js';
export { toAsyncStorage } from './memory/toAsyncStorage.js';
export { checkStoredAttempt, checkStoredAttempts, validatePageQuery } from './model/attemptInput.js';
export { RUN_STARTED_TOPIC, SESSION_ENDED_TOPIC } from './model/contextEntry.js';
export { type RunTally, validateRunTally } from './model/runTally.js';
export {
  validateContextEntryInput,
  validateContextEntryQuery,
  validateTaskFilter,
  validateTaskInput,
  validateTransition,
} from './model/stateMachineInput.js';
export type { InfrastructureKind } from './signatures/infrastructure.js';
// --- step-level detection pieces for the hooks (one process per tool call) ---
export { actionText } from './steps/actions/inputText.js';
export { shellSegments } from './steps/actions/shellSegments.js';
export { actionKey } from './steps/keys/stepKeys.js';
export { stepLoopEntry } from './steps/stepLoopEntry.js';
export {
  validateIterationCheckpointInput,
  validateIterationRecordInput,
  validateIterationSessionInput,
  validateSessionEnd,
} from './storage/iterationStore.js';
export { loopKindWords, messageWords } from './storage/loopKindWords.js';
export { iterationStoreSchema, stateMachineSchema } from './storage/portSchemas.js';
export { recoveryPageAfter, recoveryPageOf, recoveryViewsOf } from './storage/recoveryPage.js';
export {
  actionOfTopic,
  actionWords,
  FOLLOWS_NUDGE_KEY,
  RECOVERY_VIEW_TOPICS,
  type RecoveryView,
  type RecoveryViewTopic,
  recoveryViewOf,
  startsLoop,
} from './storage/recoveryView.js';
export {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  allRecoveryTopics,
  attemptOf,
  attemptRowValues,
  ENTRY_COLUMNS,
  type EntryRow,
  type EventRow,
  entryOf,
  eventOf,
  RECOVERY_TOPICS_SQL,
  RECOVERY_VIEW_TOPICS_SQL,
  runTallyUpsertSql,
  runTallyValues,
  SCHEMA_V1_TASK_STATUSES_SQL,
  TASK_COLUMNS,
  type TaskRow,
  taskOf,
} from './storage/rows.js';
export { resumeHint, runLimitWords, runReasonWords, runStatusWords } from './storage/runStatusWords.js';
export {
  type SessionCounts,
  type SpendByAgentRow,
  sessionCountsOf,
} from './storage/sessionCounts.js';
export {
  type SessionKey,
  type SessionPage,
  type SessionPageQuery,
  sessionPageAfter,
  sessionPageOf,
} from './storage/sessionPage.js';
export {
  SESSION_VERDICTS,
  type SessionRow,
  type SessionVerdict,
  type SessionView,
} from './storage/sessionView.js';
export { sessionViewOf } from './storage/sessionViewOf.js';
export type {
  BreakerTransitionView,
  FeedBatch,
  FeedPosition,
  RecoveryPage,
  RecoveryPageQuery,
  RunBreakerView,
  StatusMetricsBaseline,
  StatusReader,
  TaskPageQuery,
  TaskStatusPage,
  TaskStatusRow,
} from './storage/statusReader.js';
export {
  type SubagentVerdictRow,
  subagentVerdictsOf,
} from './storage/subagentVerdicts.js';
export { type TaskPageRow, taskPageAfter, taskPageOf } from './storage/taskPage.js';
