import { z } from 'zod';
import { parseOptions } from '../kernel/parseOptions.js';

/** Seed 001's hard cap on `max_iterations`: no override may exceed it. */
export const MAX_ITERATIONS_CAP = 50;
/** Seed 001's hard cap on `max_runtime_minutes`: no override may exceed it. */
export const MAX_RUNTIME_MINUTES_CAP = 60;
/** Seed 001's loop threshold: identical output signatures in a row that make a loop. Not configurable. */
export const LOOP_THRESHOLD = 3;

/** Seed 001's guard configuration (snake_case as in the seed). */
export interface SafetyConfig {
  /**
   * Finished iterations allowed: `iteration >= max_iterations` is unsafe. Integer 1..50.
   * @default 10
   */
  max_iterations: number;
  /**
   * Runtime allowed, minutes: `elapsed >= max_runtime_minutes` is unsafe. Positive, at most 60.
   * @default 15
   */
  max_runtime_minutes: number;
  /**
   * Consecutive errors allowed: `consecutiveErrors >= consecutive_error_limit` is unsafe. Integer ≥ 1.
   * @default 3
   */
  consecutive_error_limit: number;
  /**
   * Identical output signatures in a row that make a loop. Fixed: any other value is rejected.
   * @default 3
   */
  loop_threshold: number;
}

/**
 * Seed 001's defaults.
 * @example checkSafetyGuards(0, startTime, 0, [], DEFAULT_CONFIG)
 */
export const DEFAULT_CONFIG: Readonly<SafetyConfig> = Object.freeze({
  max_iterations: 10,
  max_runtime_minutes: 15,
  consecutive_error_limit: 3,
  loop_threshold: LOOP_THRESHOLD,
});

/** An iteration budget: an integer from 1 to the cap of {@link MAX_ITERATIONS_CAP}. */
export const maxIterationsSchema = z
  .number()
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(MAX_ITERATIONS_CAP, `cannot exceed the cap of ${MAX_ITERATIONS_CAP}`);

/** A runtime budget in minutes: positive, at most {@link MAX_RUNTIME_MINUTES_CAP}. */
export const maxRuntimeMinutesSchema = z
  .number()
  .positive('must be positive')
  .max(MAX_RUNTIME_MINUTES_CAP, `cannot exceed the cap of ${MAX_RUNTIME_MINUTES_CAP} minutes`);

/** A count threshold: an integer ≥ 1. */
export const positiveCountSchema = z.number().int('must be an integer').min(1, 'must be at least 1');

/** The loop threshold: fixed at {@link LOOP_THRESHOLD}; any other value is rejected. */
export const loopThresholdSchema = z
  .literal(LOOP_THRESHOLD, `is fixed at ${LOOP_THRESHOLD} and cannot be overridden`)
  .default(LOOP_THRESHOLD);

/** zod schema of {@link SafetyConfig} with seed 001's caps and the fixed loop threshold. */
export const safetyConfigSchema = z.strictObject({
  max_iterations: maxIterationsSchema.default(DEFAULT_CONFIG.max_iterations),
  max_runtime_minutes: maxRuntimeMinutesSchema.default(DEFAULT_CONFIG.max_runtime_minutes),
  consecutive_error_limit: positiveCountSchema.default(DEFAULT_CONFIG.consecutive_error_limit),
  loop_threshold: loopThresholdSchema,
});

/**
 * {@link DEFAULT_CONFIG} with per-task overrides applied, as in seed 001's override pattern.
 * @throws ConfigurationError when an override breaks a cap (`max_iterations` > 50,
 * `max_runtime_minutes` > 60), changes `loop_threshold`, or is of the wrong type or unknown.
 * @example resolveSafetyConfig({ max_iterations: 15, max_runtime_minutes: 30 })
 */
export function resolveSafetyConfig(overrides: Partial<SafetyConfig> = {}): SafetyConfig {
  return parseOptions(safetyConfigSchema, overrides, 'SafetyConfig');
}
