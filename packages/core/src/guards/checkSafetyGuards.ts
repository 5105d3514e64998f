import { type Clock, systemClock } from '../clock.js';
import { InvalidInputError } from '../errors.js';
import { parseOptions } from '../parseOptions.js';
import { assertStringArray, describeValue } from '../validate.js';
import { detectRepeatedOutput } from './detectRepeatedOutput.js';
import { assertInteger } from './iterationHistory.js';
import { DEFAULT_CONFIG, type SafetyConfig, safetyConfigSchema } from './safetyConfig.js';

/** Seed 001's guards, in the order {@link checkSafetyGuards} checks them. */
export type SafetyGuardName = 'max_iterations' | 'max_runtime' | 'loop_detection' | 'consecutive_errors';

/** What {@link checkSafetyGuards} returns: the seed's `{ safe, reason? }`, plus which guard. */
export interface SafetyGuardResult {
  /** Whether another iteration may run. */
  safe: boolean;
  /** The seed's reason, word for word, when not safe. */
  reason?: string;
  /** The guard that triggered, when not safe. */
  guard?: SafetyGuardName;
}

/** Milliseconds in a minute. */
const MINUTE = 60_000;

/**
 * Seed 001's guard check. `iteration` counts *finished* iterations, so `iteration >= max_iterations`
 * is unsafe (seed 000's {@link checkMaxIterations} is 1-based instead: the same limit, one apart in
 * numbering). Checked in the seed's guard-interaction order: max iterations, max runtime, loop
 * detection, consecutive errors; the first triggered wins.
 *
 * @param iteration - iterations finished, integer ≥ 0.
 * @param startTime - when the loop started (`Date` or epoch ms).
 * @param consecutiveErrors - errors in a row (see {@link countConsecutiveErrors}), integer ≥ 0.
 * @param recentOutputs - latest outputs, oldest first; compared by signature (see {@link detectRepeatedOutput}).
 * @param config - the guard configuration. @default DEFAULT_CONFIG
 * @param clock - source of "now" for the runtime. @default systemClock
 * @throws ConfigurationError when `config` breaks a cap or overrides `loop_threshold`;
 * InvalidInputError when an argument is malformed.
 * @example
 * checkSafetyGuards(10, start, 0, [], DEFAULT_CONFIG); // { safe: false, reason: 'max_iterations (10) exceeded', guard: 'max_iterations' }
 */
export function checkSafetyGuards(
  iteration: number,
  startTime: Date | number,
  consecutiveErrors: number,
  recentOutputs: readonly string[],
  config: SafetyConfig = DEFAULT_CONFIG,
  clock: Clock = systemClock,
): SafetyGuardResult {
  assertInteger(iteration, 'iteration', 0);
  const start = epochOf(startTime);
  assertInteger(consecutiveErrors, 'consecutiveErrors', 0);
  assertStringArray(recentOutputs, 'recentOutputs');
  const resolved = parseOptions(safetyConfigSchema, config, 'SafetyConfig');

  if (iteration >= resolved.max_iterations) {
    return unsafe('max_iterations', `max_iterations (${resolved.max_iterations}) exceeded`);
  }
  if (elapsedMinutes(start, clock) >= resolved.max_runtime_minutes) {
    return unsafe('max_runtime', `max_runtime (${resolved.max_runtime_minutes}min) exceeded`);
  }
  if (detectRepeatedOutput(recentOutputs))
    return unsafe('loop_detection', 'Loop detected - same output repeated');
  if (consecutiveErrors >= resolved.consecutive_error_limit) {
    return unsafe(
      'consecutive_errors',
      `consecutive_error_limit (${resolved.consecutive_error_limit}) exceeded`,
    );
  }
  return { safe: true };
}

/**
 * Minutes since `startTime` on `clock`.
 * @example elapsedMinutes(0, new ManualClock(90_000)); // 1.5
 */
export function elapsedMinutes(startTime: Date | number, clock: Clock = systemClock): number {
  return (clock.now() - epochOf(startTime)) / MINUTE;
}

function epochOf(startTime: Date | number): number {
  const epoch = startTime instanceof Date ? startTime.getTime() : startTime;
  if (typeof epoch !== 'number' || !Number.isFinite(epoch)) {
    throw new InvalidInputError(
      `startTime must be a valid Date or epoch ms, got ${describeValue(startTime)}`,
    );
  }
  return epoch;
}

function unsafe(guard: SafetyGuardName, reason: string): SafetyGuardResult {
  return { safe: false, reason, guard };
}
