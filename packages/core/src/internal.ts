/**
 * `@loopguard/core/internal`: what loopguard's sibling packages (sqlite, postgres, orchestrator,
 * server, cli) share with core but an embedder does not need. No stability promise: names here may
 * change in any release.
 *
 * @example
 * import { judgeAttempts, planRecovery } from '@loopguard/core/internal';
 * @packageDocumentation
 */

// --- attempt construction and validation shared by the detector shells and the adapters (issue 13) ---
export { newAttempt, validateAttemptInput } from './attemptInput.js';
// --- storage seam: pure judging and recovery planning shared by every detector shell (issue 8) ---
export {
  type DetectionOptions,
  detectionResultOf,
  grantActiveOf,
  type JudgeInput,
  judgeAttempts,
} from './loopDetection.js';
export { type PlannedTransition, planRecovery, type RecoveryPlan } from './recoveryPlan.js';
export { isStorage } from './storage.js';
export { UndoJournal } from './UndoJournal.js';
