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
/** Default iterations in a row with a denied permission that open the breaker (ralph's figure). */
export const DEFAULT_PERMISSION_DENIAL_THRESHOLD = 2;
/** Default share of test-only iterations above which they count as stagnation (seed 003: 30 %). */
export const DEFAULT_TEST_ONLY_SHARE = 0.3;
/** Default window of iterations (that changed files) over which the test-only share is taken. */
export const DEFAULT_TEST_ONLY_WINDOW = 10;
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
  /** Iterations in a row whose tool calls were denied a permission that open the breaker. Integer ≥ 1. @default 2 */
  permissionDenialThreshold?: number;
  /**
   * The share (0..1) of test-only iterations, among the last `testOnlyWindow` that changed files, above
   * which a test-only iteration is stagnation (seed 003: "> 30 %"); `stagnationThreshold` of them in a
   * row open the breaker.
   * @default 0.3
   */
  testOnlyShare?: number;
  /** How many of the last iterations that changed files the test-only share is taken over. Integer ≥ 3. @default 10 */
  testOnlyWindow?: number;
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
  permissionDenialThreshold: countSchema.default(DEFAULT_PERMISSION_DENIAL_THRESHOLD),
  testOnlyShare: z
    .number()
    .min(0, 'must be between 0 and 1')
    .max(1, 'must be between 0 and 1')
    .default(DEFAULT_TEST_ONLY_SHARE),
  testOnlyWindow: z.number().int().min(3, 'must be an integer ≥ 3').default(DEFAULT_TEST_ONLY_WINDOW),
  cooldownMs: z.number().finite().min(0, 'must be ≥ 0').default(DEFAULT_COOLDOWN_MS),
  autoReset: z.boolean().default(false),
  snapshot: z.unknown().optional(),
  clock: clockSchema().optional(),
  logger: loggerSchema().optional(),
});

/** {@link StagnationBreakerOptions} after defaults. */
export type ResolvedStagnationBreakerOptions = z.output<typeof stagnationBreakerOptionsSchema>;
