import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../kernel/clock.js';
import { clockSchema, loggerSchema } from '../kernel/optionSchemas.js';

/** Default iterations without progress that open the breaker (ralph's and the seed's figure). */
export const DEFAULT_STAGNATION_THRESHOLD = 3;
/** Default same error signature in a row that opens the breaker (ralph's figure). */
export const DEFAULT_SAME_ERROR_THRESHOLD = 5;
/** Default iterations the same task may stay in progress. */
export const DEFAULT_TASK_THRESHOLD = 5;
/** Default wait before an `OPEN` breaker lets trial iterations through: 30 minutes. */
export const DEFAULT_COOLDOWN_MS = 30 * 60_000;

/**
 * Options of {@link StagnationBreaker}.
 * @example new StagnationBreaker({ runId: 'r1', stagnationThreshold: 3, cooldownMs: 0, clock })
 */
export interface StagnationBreakerOptions {
  /** The run the breaker belongs to; every transition carries it. */
  runId: string;
  /**
   * Iterations in a row without file changes, and unverified completion claims in a row, that open
   * the breaker. Integer ≥ 1.
   * @default 3
   */
  stagnationThreshold?: number;
  /** The same normalised error in a row that opens the breaker. Integer ≥ 1. @default 5 */
  sameErrorThreshold?: number;
  /** Iterations the same task may stay in progress before the breaker opens. Integer ≥ 1. @default 5 */
  taskThreshold?: number;
  /** How long an `OPEN` breaker waits before trial iterations (`HALF_OPEN`); 0 = at once. @default 1800000 */
  cooldownMs?: number;
  /** After the cooldown go straight to `CLOSED` (fresh counters) instead of `HALF_OPEN`. @default false */
  autoReset?: boolean;
  /**
   * A persisted {@link BreakerSnapshot} to continue from (resume). `null` means none was found; an
   * invalid value is reported, not thrown: the breaker starts `CLOSED` and says so in `restoreNotice`.
   * @default undefined (a new run)
   */
  snapshot?: unknown;
  /** Source of time. @default systemClock */
  clock?: Clock;
  /** pino logger; the breaker logs through `logger.child({ component: 'StagnationBreaker' })`. @default silent */
  logger?: Logger;
}

const countSchema = z.number().int().min(1, 'must be an integer ≥ 1');

/** zod schema of {@link StagnationBreakerOptions}; unknown keys are rejected. */
export const stagnationBreakerOptionsSchema = z.strictObject({
  runId: z.string().min(1, 'must be a non-empty string'),
  stagnationThreshold: countSchema.default(DEFAULT_STAGNATION_THRESHOLD),
  sameErrorThreshold: countSchema.default(DEFAULT_SAME_ERROR_THRESHOLD),
  taskThreshold: countSchema.default(DEFAULT_TASK_THRESHOLD),
  cooldownMs: z.number().finite().min(0, 'must be ≥ 0').default(DEFAULT_COOLDOWN_MS),
  autoReset: z.boolean().default(false),
  snapshot: z.unknown().optional(),
  clock: clockSchema.optional(),
  logger: loggerSchema.optional(),
});

/** {@link StagnationBreakerOptions} after defaults. */
export type ResolvedStagnationBreakerOptions = z.output<typeof stagnationBreakerOptionsSchema>;
