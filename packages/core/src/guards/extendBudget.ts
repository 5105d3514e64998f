import { ConfigurationError, InvalidInputError } from '../kernel/errors.js';
import { parseOptions } from '../kernel/parseOptions.js';
import { describeValue } from '../kernel/validate.js';
import { assertInteger } from './iterationHistory.js';
import {
  MAX_ITERATIONS_CAP,
  MAX_RUNTIME_MINUTES_CAP,
  type SafetyConfig,
  safetyConfigSchema,
} from './safetyConfig.js';

/** How much more to allow, for option 1 of the escalation report ("Continue with N more iterations"). */
export interface BudgetExtension {
  /** More iterations, integer ≥ 1. */
  iterations: number;
  /** More minutes of runtime, positive. @default 0 */
  runtimeMinutes?: number;
}

/**
 * The iterations that can still be added before `max_iterations` reaches the cap of 50.
 * @example remainingIterationExtension({ ...DEFAULT_CONFIG, max_iterations: 45 }); // 5
 */
export function remainingIterationExtension(config: SafetyConfig): number {
  return Math.max(0, MAX_ITERATIONS_CAP - config.max_iterations);
}

/**
 * The "continue with N more iterations" path of seed 001: a new configuration with a larger budget.
 * The caps still hold: the extension is refused, not clamped, when it would pass them.
 *
 * @throws ConfigurationError when the extended budget would exceed 50 iterations or 60 minutes,
 * or `config` is invalid; InvalidInputError when the extension is malformed.
 * @example extendBudget(DEFAULT_CONFIG, { iterations: 5 }).max_iterations; // 15
 */
export function extendBudget(config: SafetyConfig, extension: BudgetExtension): SafetyConfig {
  const current = parseOptions(safetyConfigSchema, config, 'SafetyConfig');
  assertInteger(extension?.iterations, 'extension.iterations', 1);
  const runtimeMinutes = extension.runtimeMinutes ?? 0;
  if (typeof runtimeMinutes !== 'number' || !Number.isFinite(runtimeMinutes) || runtimeMinutes < 0) {
    throw new InvalidInputError(
      `extension.runtimeMinutes must be a non-negative number, got ${describeValue(runtimeMinutes)}`,
    );
  }
  const maxIterations = current.max_iterations + extension.iterations;
  if (maxIterations > MAX_ITERATIONS_CAP) {
    throw new ConfigurationError(
      `cannot continue with ${extension.iterations} more iterations: max_iterations would be ${maxIterations}, above the cap of ${MAX_ITERATIONS_CAP} (at most ${remainingIterationExtension(current)} more)`,
    );
  }
  const maxRuntime = current.max_runtime_minutes + runtimeMinutes;
  if (maxRuntime > MAX_RUNTIME_MINUTES_CAP) {
    throw new ConfigurationError(
      `cannot add ${runtimeMinutes} minutes: max_runtime_minutes would be ${maxRuntime}, above the cap of ${MAX_RUNTIME_MINUTES_CAP}`,
    );
  }
  return { ...current, max_iterations: maxIterations, max_runtime_minutes: maxRuntime };
}
