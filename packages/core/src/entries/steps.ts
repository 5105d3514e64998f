/**
 * `@loopguard/core/steps`: step-level loop detection inside one agent run — `StepLoopDetector`, the
 * steps it observes, the parsers that turn an agent's output lines into steps, and each agent's
 * one translation of its tool calls, results and text into steps (shared by the hooks, the live
 * stream, `scan` and the framework adapters).
 * @packageDocumentation
 */

export { DEFAULT_EXEMPT_COMMANDS, DEFAULT_EXEMPT_TOOLS } from '../steps/actions/exemptions.js';
export { canonicalInput, SHELL_TOOLS, shellCommandOf } from '../steps/actions/shellCommand.js';
export type { StepEvidence } from '../steps/history/stepHistory.js';
export { isStepLoopDetectionEnabled, setStepLoopDetectionEnabled } from '../steps/options/globalSwitch.js';
export {
  sealStepLoopDetectorOptions,
  unsealStepLoopDetectorOptions,
} from '../steps/options/sealedStepOptions.js';
export {
  FNV_SEAL_CHECKSUM,
  type SealChecksum,
  STEP_SNAPSHOT_LAYOUT,
  sealedBody,
  sealText,
} from '../steps/options/snapshotSeal.js';
export {
  defaultStepLoopDetectorOptions,
  parseStepLoopDetectorOptions,
  type StepLoopDetectorOptions,
} from '../steps/options/stepLoopDetectorOptions.js';
export {
  type SnapshotJson,
  type SnapshotPart,
  STEP_SNAPSHOT_FORMAT,
  STEP_SNAPSHOT_VERSION,
  type StepDetectorSnapshot,
} from '../steps/options/stepSnapshot.js';
export { JsonlStepParser } from '../steps/parsers/JsonlStepParser.js';
export type { StepLineParser } from '../steps/parsers/StepLineParser.js';
export type { StepLoopType } from '../steps/rules/StepRule.js';
export {
  STEP_LOOP_TOPICS,
  StepLoopDetector,
  type StepLoopDetectorEvents,
  type StepVerdict,
} from '../steps/StepLoopDetector.js';
export type { ActionStep, MessageStep, ObservationStep, Step } from '../steps/step.js';
export { ClaudeStreamJsonParser } from '../translation/claudeCode/ClaudeStreamJsonParser.js';
export {
  ClaudeCodeSteps,
  claudeBatchResult,
  claudeResultText,
  claudeToolResponseText,
} from '../translation/claudeCode/claudeCodeSteps.js';
export { CODEX_TOOLS, CodexJsonParser } from '../translation/codex/CodexJsonParser.js';
export { CodexExecSteps } from '../translation/codex/codexExecSteps.js';
export { CodexRolloutSteps } from '../translation/codex/codexRolloutSteps.js';
export { codexToolName } from '../translation/codex/codexTools.js';
export { GeminiStreamJsonParser } from '../translation/geminiCli/GeminiStreamJsonParser.js';
export { geminiChatUsage } from '../translation/geminiCli/geminiChatUsage.js';
export { GeminiCliSteps, geminiToolResponse } from '../translation/geminiCli/geminiCliSteps.js';
