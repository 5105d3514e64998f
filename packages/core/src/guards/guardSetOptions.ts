import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../kernel/clock.js';
import { clockSchema, loggerSchema } from '../kernel/optionSchemas.js';
import { DEFAULT_CIRCUIT_BREAKER_THRESHOLD } from './ConsecutiveFailuresGuard.js';
import {
  DEFAULT_CONFIG,
  loopThresholdSchema,
  maxIterationsSchema,
  maxRuntimeMinutesSchema,
  positiveCountSchema,
} from './safetyConfig.js';
import type { SignatureExemption } from './signatureExemption.js';
import { DEFAULT_THRASHING_THRESHOLD } from './ThrashingGuard.js';

/** Options of {@link GuardSet}: one configuration for every guard. */
export interface GuardSetOptions {
  /**
   * Iterations allowed; iteration `maxIterations + 1` is blocked. Integer 1..50 (seed 001's cap).
   * @default 10
   */
  maxIterations?: number;
  /**
   * Minutes a run may last, measured from `startedAt`. Positive, at most 60 (seed 001's cap).
   * @default 15
   */
  maxRuntimeMinutes?: number;
  /**
   * Failed iterations in a row that block (infrastructure errors and exempt outputs not counted). Integer ≥ 1.
   * @default 3
   */
  consecutiveFailureLimit?: number;
  /**
   * Outputs in a row with the same signature that make a loop. Fixed at 3 (seed 001): any other value is rejected.
   * @default 3
   */
  loopThreshold?: number;
  /**
   * Iterations modifying the same file that count as thrashing. Integer ≥ 1.
   * @default 5
   */
  thrashingThreshold?: number;
  /**
   * Signatures whose repetition is legitimate (polling, waiting): outputs matching one count neither
   * as failures nor as repeats.
   * @default []
   * @example [/^text:waiting for deployment/, 'infrastructure:rate_limit']
   */
  exemptSignatures?: readonly SignatureExemption[];
  /** Source of time for the runtime guard. @default systemClock */
  clock?: Clock;
  /** pino logger; the set logs through `logger.child({ component: 'GuardSet' })`. @default silent */
  logger?: Logger;
}

/** zod schema of {@link GuardSetOptions}; unknown keys are rejected so that typos surface. */
export const guardSetOptionsSchema = z.strictObject({
  maxIterations: maxIterationsSchema.default(DEFAULT_CONFIG.max_iterations),
  maxRuntimeMinutes: maxRuntimeMinutesSchema.default(DEFAULT_CONFIG.max_runtime_minutes),
  consecutiveFailureLimit: positiveCountSchema.default(DEFAULT_CIRCUIT_BREAKER_THRESHOLD),
  loopThreshold: loopThresholdSchema,
  thrashingThreshold: positiveCountSchema.default(DEFAULT_THRASHING_THRESHOLD),
  exemptSignatures: z
    .array(z.union([z.string().min(1, 'must not be empty'), z.instanceof(RegExp)]))
    .readonly()
    .default([]),
  clock: clockSchema().optional(),
  logger: loggerSchema().optional(),
});

/** {@link GuardSetOptions} after defaults. */
export type ResolvedGuardSetOptions = z.output<typeof guardSetOptionsSchema>;
