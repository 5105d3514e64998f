/**
 * `@loopguard/agents/openai-agents`: a step-level loop guard for the OpenAI Agents SDK
 * (`@openai/agents`): `callModelInputFilter` delivers the nudge as a user message and ends a looping
 * run with {@link LoopStoppedError}; with the `spend` option, `watch(agent)` reads the run's usage
 * and a run over its budget ends with {@link BudgetSpentError}.
 * @packageDocumentation
 */
export { BudgetSpentError } from '../shared/BudgetSpentError.js';
export { LoopStoppedError } from '../shared/LoopStoppedError.js';
export type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
export { RunGuard } from '../shared/RunGuard.js';
export { type AgentItemLike, DEFAULT_TOOL_ERROR_MESSAGE, itemSteps } from './itemSteps.js';
export {
  type GuardToolErrorFunction,
  loopGuard,
  type OpenAIAgentsLoopGuard,
  type OpenAIAgentsLoopGuardOptions,
} from './loopGuard.js';
export { RunUsage } from './runUsage.js';
