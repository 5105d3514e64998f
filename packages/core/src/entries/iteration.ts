/**
 * `@loopguard/core/iteration`: iteration control (`decide`: continue, refine or escalate from an
 * iteration's check, with feedback for the next one) and the iteration-store port that records
 * guarded iteration sessions, with its in-memory adapter.
 * @packageDocumentation
 */

export { decide, type IterationDecision } from '../iteration/decide.js';
export type { AttemptPattern } from '../iteration/detectPattern.js';
export {
  type AttemptRecord,
  type IterationCheck,
  parseIterationCheck,
  type ReviewResult,
  type TestResult,
} from '../iteration/iterationCheck.js';
export {
  DEFAULT_ITERATION_CONTROL,
  type IterationControlOptions,
  type ResolvedIterationControlOptions,
} from '../iteration/iterationControlOptions.js';
export {
  formatDecisionYaml,
  parseIterationCheckYaml,
  parseIterationControlYaml,
} from '../iteration/iterationYaml.js';
export type { FeedbackPriority, ReviewItem } from '../iteration/reviewFindings.js';
export { type Feedback, synthesizeFeedback } from '../iteration/synthesizeFeedback.js';
export type { TestFindings } from '../iteration/testFindings.js';
export { InMemoryIterationStore } from '../memory/InMemoryIterationStore.js';
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
} from '../storage/iterationStore.js';
