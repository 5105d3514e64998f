import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../kernel/clock.js';
import { clockSchema, loggerSchema } from '../kernel/optionSchemas.js';
import { attemptStoreSchema } from '../storage/portSchemas.js';
import type { AttemptStore } from '../storage/ports.js';

/** Options of {@link LoopDetector}; the first four are the seed's. */
export interface LoopDetectorOptions {
  /**
   * Attempts in a row (inside the window) before they count as a loop. Integer ≥ 2.
   * @default 3
   */
  maxAttempts?: number;
  /**
   * Width of the attempt window in ms; older attempts are pruned and never count. Positive, finite.
   * @default 3_600_000 (one hour)
   */
  attemptWindow?: number;
  /**
   * Grant unblock authority on a blocked spin; when `false`, a blocked spin escalates to a human.
   * @default true
   */
  enableAutoUnblock?: boolean;
  /**
   * Attempts of identical status and completed work that make a `no_progress_repeat` loop, which
   * recommends `force_next`. (While unblock authority is in force, `maxAttempts` of them escalate.)
   * Integer ≥ `maxAttempts`.
   * @default 5
   */
  maxAttemptsBeforeForceNext?: number;
  /**
   * The per-task budget: attempts at one task inside the window after which it escalates
   * (`attempt_budget_exhausted`) even though no loop rule fired — an agent whose reports vary a
   * little every attempt. Integer ≥ `maxAttemptsBeforeForceNext`; `null` turns it off.
   * @default 20, or `maxAttemptsBeforeForceNext` when that is larger
   */
  maxAttemptsPerTask?: number | null;
  /**
   * Compare blockers by their normalised signature (durations, timestamps, ids, line numbers and
   * temporary paths do not count), so `ETIMEDOUT after 1001 ms` and `ETIMEDOUT after 1003 ms` are
   * the same blocker; the raw text stays in the evidence. `false` compares the exact text.
   * @default true
   */
  blockerSignatures?: boolean;
  /**
   * Rounds of a cross-task cycle (T1 → T2 → T1 …, each task attempted once per round with the same
   * status, blockers and work as its previous attempt) that make a `cross_task_cycle` loop, which
   * escalates every task of the cycle. Integer ≥ 2; `null` turns cycle detection off. Cycles are
   * seen in the attempts this detector recorded inside the window.
   * @default 3
   */
  cycleRounds?: number | null;
  /**
   * Most distinct tasks in one cross-task cycle. Integer from 2 to 5.
   * @default 3
   */
  maxCycleTasks?: number;
  /**
   * At most this many attempts (the newest) are returned as evidence and stored in a recovery's metadata.
   * @default 50
   */
  maxEvidence?: number;
  /**
   * Every this many `recordAttempt` calls, one bounded batch of expired attempts is pruned from storage.
   * @default 1000
   */
  pruneEvery?: number;
  /**
   * Most attempts deleted by one prune batch.
   * @default 1000
   */
  pruneBatchSize?: number;
  /**
   * Where attempts are persisted (for example `SqliteAttemptStore` from `@loopguard/sqlite`, so that a
   * restarted process resumes). Without one, attempts live only in the detector's memory.
   * @default undefined (memory only)
   */
  attemptStore?: AttemptStore;
  /**
   * Other processes write to the same attempt store (several autopilots on one SQLite file): every
   * `recordAttempt` and `detectLoop` re-reads the task's attempts and unblock grant from storage, so
   * loops made of attempts from several processes are seen at once. Costs one storage read per call.
   * Without it, a detector sees what it recorded plus what was stored when it first met the task;
   * `applyRecovery` always re-judges against storage either way. Needs a `Storage` or an `attemptStore`.
   * @default false
   */
  sharedStorage?: boolean;
  /** Source of time. @default systemClock */
  clock?: Clock;
  /** pino logger; the detector logs through `logger.child({ component: 'LoopDetector' })`. @default silent */
  logger?: Logger;
}

const positiveInt = z.number().int().positive();

/** zod schema of {@link LoopDetectorOptions}; unknown keys are rejected so that typos surface. */
export const loopDetectorOptionsSchema = z
  .strictObject({
    maxAttempts: z.number().int().min(2).default(3),
    attemptWindow: z.number().positive().finite().default(3_600_000),
    enableAutoUnblock: z.boolean().default(true),
    maxAttemptsBeforeForceNext: z.number().int().min(2).default(5),
    maxEvidence: positiveInt.default(50),
    blockerSignatures: z.boolean().default(true),
    maxAttemptsPerTask: z.number().int().min(2).nullable().optional(),
    cycleRounds: z.number().int().min(2).nullable().default(3),
    maxCycleTasks: z.number().int().min(2).max(5).default(3),
    pruneEvery: positiveInt.default(1000),
    pruneBatchSize: positiveInt.default(1000),
    sharedStorage: z.boolean().default(false),
    attemptStore: attemptStoreSchema.optional(),
    clock: clockSchema().optional(),
    logger: loggerSchema().optional(),
  })
  .refine((o) => o.maxAttemptsBeforeForceNext >= o.maxAttempts, {
    message: 'must be at least maxAttempts',
    path: ['maxAttemptsBeforeForceNext'],
  })
  .refine(
    (o) => typeof o.maxAttemptsPerTask !== 'number' || o.maxAttemptsPerTask >= o.maxAttemptsBeforeForceNext,
    {
      message: 'must be at least maxAttemptsBeforeForceNext (or null to turn the budget off)',
      path: ['maxAttemptsPerTask'],
    },
  );

/** The seed's "conservative (slow but safe)" tuning: always escalate blocked spins. */
export const CONSERVATIVE_PRESET = Object.freeze({
  maxAttempts: 5,
  maxAttemptsBeforeForceNext: 8,
  enableAutoUnblock: false,
}) satisfies LoopDetectorOptions;

/** The seed's "aggressive (fast but risky)" tuning. */
export const AGGRESSIVE_PRESET = Object.freeze({
  maxAttempts: 2,
  maxAttemptsBeforeForceNext: 3,
  enableAutoUnblock: true,
}) satisfies LoopDetectorOptions;

/** The seed's "recommended (balanced)" tuning; equal to the defaults. */
export const RECOMMENDED_PRESET = Object.freeze({
  maxAttempts: 3,
  maxAttemptsBeforeForceNext: 5,
  enableAutoUnblock: true,
}) satisfies LoopDetectorOptions;

/**
 * The three presets by name.
 * @example new LoopDetector(stateMachine, { ...LOOP_DETECTOR_PRESETS.conservative, clock })
 */
export const LOOP_DETECTOR_PRESETS = Object.freeze({
  conservative: CONSERVATIVE_PRESET,
  aggressive: AGGRESSIVE_PRESET,
  recommended: RECOMMENDED_PRESET,
});
