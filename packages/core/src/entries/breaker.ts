/**
 * `@loopguard/core/breaker`: the stagnation circuit breaker over the iterations of an agent command
 * (CLOSED / OPEN / HALF_OPEN), its signals' readings and its documented defaults.
 * @packageDocumentation
 */

export {
  DEFAULT_COOLDOWN_MS,
  DEFAULT_PERMISSION_DENIAL_THRESHOLD,
  DEFAULT_SAME_ERROR_THRESHOLD,
  DEFAULT_STAGNATION_THRESHOLD,
  DEFAULT_TASK_THRESHOLD,
  DEFAULT_TEST_ONLY_SHARE,
  DEFAULT_TEST_ONLY_WINDOW,
  type StagnationBreakerOptions,
} from '../breaker/breakerOptions.js';
export type { BreakerSnapshot } from '../breaker/breakerSnapshot.js';
export type {
  BreakerState,
  BreakerTransition,
  BreakerVerdict,
  IterationObservation,
  IterationProgress,
  SignalName,
  SignalReading,
  SignalStatus,
} from '../breaker/breakerTypes.js';
export { DEFAULT_INFRASTRUCTURE_BACKOFF_MS } from '../breaker/infrastructureWait.js';
export { reportedError } from '../breaker/reportedError.js';
export { StagnationBreaker, type StagnationBreakerEvents } from '../breaker/StagnationBreaker.js';
export { SIGNAL_WORDS } from '../breaker/signalWords.js';
export { isTestFile } from '../breaker/TestOnlySignal.js';
export { type ErrorKind, type ErrorSignature, errorSignature } from '../signatures/errorSignature.js';
