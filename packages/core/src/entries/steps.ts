/**
 * `@loopguard/core/steps`: step-level loop detection inside one agent run — `StepLoopDetector`, the
 * steps it observes and the parsers that turn an agent's output lines into steps.
 * @packageDocumentation
 */

export { ClaudeStreamJsonParser } from '../steps/ClaudeStreamJsonParser.js';
export { CODEX_TOOLS, CodexJsonParser } from '../steps/CodexJsonParser.js';
export { DEFAULT_EXEMPT_COMMANDS, DEFAULT_EXEMPT_TOOLS } from '../steps/exemptions.js';
export { GeminiStreamJsonParser } from '../steps/GeminiStreamJsonParser.js';
export { isStepLoopDetectionEnabled, setStepLoopDetectionEnabled } from '../steps/globalSwitch.js';
export { JsonlStepParser } from '../steps/JsonlStepParser.js';
export type { StepLineParser } from '../steps/StepLineParser.js';
export {
  STEP_LOOP_TOPICS,
  StepLoopDetector,
  type StepLoopDetectorEvents,
  type StepVerdict,
} from '../steps/StepLoopDetector.js';
export type { StepLoopType } from '../steps/StepRule.js';
export type { ActionStep, MessageStep, ObservationStep, Step } from '../steps/step.js';
export type { StepEvidence } from '../steps/stepHistory.js';
export type { StepLoopDetectorOptions } from '../steps/stepLoopDetectorOptions.js';
export {
  type SnapshotJson,
  type SnapshotPart,
  STEP_SNAPSHOT_FORMAT,
  STEP_SNAPSHOT_VERSION,
  type StepDetectorSnapshot,
} from '../steps/stepSnapshot.js';
