/**
 * `@loopguard/agents/ai-sdk`: a step-level loop guard for the Vercel AI SDK (`ai`): `prepareStep`
 * delivers the nudge, `stopWhen` ends a looping run.
 * @packageDocumentation
 */
export { LoopStoppedError } from '../shared/LoopStoppedError.js';
export type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
export { RunGuard } from '../shared/RunGuard.js';
export { type ContentPartLike, contentSteps } from './contentSteps.js';
export { type AiSdkLoopGuard, type AiSdkLoopGuardOptions, loopGuard } from './loopGuard.js';
