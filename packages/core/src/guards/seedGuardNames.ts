import type { GuardName } from './Guard.js';
import type { SafetyBlocker } from './safetyResults.js';

/** Seed 001's guard names, in the order its {@link checkSafetyGuards} checks them. */
export type SafetyGuardName = 'max_iterations' | 'max_runtime' | 'loop_detection' | 'consecutive_errors';

/**
 * Seed 000's name of each guard its runner uses: the project's `consecutive_failures` is seed 000's
 * `circuit_breaker`. The one place where the project's names meet seed 000's.
 */
export const SEED_000_NAMES = Object.freeze({
  max_iterations: 'max_iterations',
  consecutive_failures: 'circuit_breaker',
  quality_regression: 'quality_regression',
  thrashing: 'thrashing',
} satisfies Partial<Record<GuardName, SafetyBlocker>>);

/**
 * Seed 001's name of each guard its check uses: `repeated_output` is its `loop_detection`,
 * `consecutive_failures` its `consecutive_errors`. The one place where the project's names meet seed 001's.
 */
export const SEED_001_NAMES = Object.freeze({
  max_iterations: 'max_iterations',
  max_runtime: 'max_runtime',
  repeated_output: 'loop_detection',
  consecutive_failures: 'consecutive_errors',
} satisfies Partial<Record<GuardName, SafetyGuardName>>);

/**
 * The project's name of a seed guard name (either seed), for callers that hold a seed result.
 * @example guardNameOf('circuit_breaker'); // 'consecutive_failures'
 */
export function guardNameOf(name: SafetyBlocker | SafetyGuardName): GuardName {
  for (const table of [SEED_000_NAMES, SEED_001_NAMES] as const) {
    for (const [guard, seedName] of Object.entries(table)) if (seedName === name) return guard as GuardName;
  }
  throw new TypeError(`not a seed guard name: ${String(name)}`);
}
