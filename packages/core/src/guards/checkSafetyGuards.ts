import { type Clock, checkedClock, systemClock } from '../kernel/clock.js';
import { InvalidInputError } from '../kernel/errors.js';
import { parseOptions } from '../kernel/parseOptions.js';
import { copyStringArray, describeValue } from '../kernel/validate.js';
import { ConsecutiveFailuresGuard } from './ConsecutiveFailuresGuard.js';
import { guardStateOf, runGuards } from './guardState.js';
import { assertInteger } from './iterationHistory.js';
import { MaxIterationsGuard } from './MaxIterationsGuard.js';
import { MaxRuntimeGuard } from './MaxRuntimeGuard.js';
import { RepeatedOutputGuard } from './RepeatedOutputGuard.js';
import { DEFAULT_CONFIG, type SafetyConfig, safetyConfigSchema } from './safetyConfig.js';
import { type SafetyGuardName, SEED_001_NAMES } from './seedGuardNames.js';

export type { SafetyGuardName } from './seedGuardNames.js';

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
  const outputs = copyStringArray(recentOutputs, 'recentOutputs');
  const resolved = parseOptions(safetyConfigSchema, config, 'SafetyConfig');
  // seed 001 counts finished iterations; the guards judge the iteration about to run
  const state = guardStateOf({
    iteration: iteration + 1,
    startedAt: start,
    now: checkedClock(clock, 'clock').now(),
    history: outputs.map((output, i) => ({ iteration: i + 1, output })),
    consecutiveFailures: consecutiveErrors,
  });
  const verdict = runGuards(
    [
      new MaxIterationsGuard(resolved.max_iterations),
      new MaxRuntimeGuard(resolved.max_runtime_minutes),
      new RepeatedOutputGuard(),
      new ConsecutiveFailuresGuard(resolved.consecutive_error_limit),
    ],
    state,
  );
  if (verdict === null) return { safe: true };
  const guard = SEED_001_NAMES[verdict.guard as keyof typeof SEED_001_NAMES];
  return { safe: false, reason: seed001Reason(guard, resolved, verdict.message), guard };
}

/** Seed 001's reasons, word for word, where they differ from the guards' own messages. */
function seed001Reason(guard: SafetyGuardName, config: SafetyConfig, message: string): string {
  if (guard === 'max_iterations') return `max_iterations (${config.max_iterations}) exceeded`;
  if (guard === 'consecutive_errors')
    return `consecutive_error_limit (${config.consecutive_error_limit}) exceeded`;
  return message;
}

/**
 * Minutes since `startTime` on `clock`.
 * @example elapsedMinutes(0, new ManualClock(90_000)); // 1.5
 */
export function elapsedMinutes(startTime: Date | number, clock: Clock = systemClock): number {
  return (checkedClock(clock, 'clock').now() - epochOf(startTime)) / MINUTE;
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
