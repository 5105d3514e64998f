/**
 * `@loopguard/agents/claude-agent-sdk`: a step-level loop guard for the Claude Agent SDK
 * (`@anthropic-ai/claude-agent-sdk`): `PostToolUse` hooks deliver the nudge, `continue: false` and a
 * denied tool call end a looping run.
 * @packageDocumentation
 */
export { LoopStoppedError } from '../shared/LoopStoppedError.js';
export type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
export { RunGuard } from '../shared/RunGuard.js';
export {
  type ClaudeAgentLoopGuard,
  type ClaudeAgentLoopGuardOptions,
  type ClaudeHooks,
  loopGuard,
} from './loopGuard.js';
