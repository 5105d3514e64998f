/**
 * `@loopguard/agents/langgraph`: a step-level loop guard for LangGraph.js (`@langchain/langgraph`):
 * a node that adds the nudge to `messages`, and a conditional-edge router that sends a looping run to `END`.
 * @packageDocumentation
 */
export { LoopStoppedError } from '../shared/LoopStoppedError.js';
export type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
export { RunGuard } from '../shared/RunGuard.js';
export { type LangGraphLoopGuard, loopGuard, type MessagesState } from './loopGuard.js';
export { messageSteps } from './messageSteps.js';
