/**
 * `@loopguard/core/guards`: the iteration guard set (max iterations, max runtime, consecutive
 * failures, quality regression, thrashing, repeated output) as composable strategies, and the
 * monitor that counts their triggers.
 * @packageDocumentation
 */

export {
  ConsecutiveFailuresGuard,
  DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
} from '../guards/ConsecutiveFailuresGuard.js';
export type {
  AnalysedIteration,
  Guard,
  GuardIteration,
  GuardName,
  GuardState,
  GuardVerdict,
} from '../guards/Guard.js';
export { GuardMonitor, type GuardMonitorSnapshot, type MonitoredGuard } from '../guards/GuardMonitor.js';
export {
  type GuardCheckInput,
  GuardSet,
  type GuardSetEvents,
  type GuardSetResult,
  type GuardTrigger,
} from '../guards/GuardSet.js';
export type { GuardSetOptions, ResolvedGuardSetOptions } from '../guards/guardSetOptions.js';
export { MaxIterationsGuard } from '../guards/MaxIterationsGuard.js';
export { MaxRuntimeGuard } from '../guards/MaxRuntimeGuard.js';
export { QualityRegressionGuard } from '../guards/QualityRegressionGuard.js';
export { RepeatedOutputGuard } from '../guards/RepeatedOutputGuard.js';
export { MAX_ITERATIONS_CAP, MAX_RUNTIME_MINUTES_CAP } from '../guards/safetyConfig.js';
export type { SignatureExemption } from '../guards/signatureExemption.js';
export { ThrashingGuard } from '../guards/ThrashingGuard.js';
