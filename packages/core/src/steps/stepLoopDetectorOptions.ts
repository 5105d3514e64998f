import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../kernel/clock.js';
import { clockSchema, loggerSchema, portSchema } from '../kernel/optionSchemas.js';
import type { StateMachine } from '../storage/ports.js';
import { DEFAULT_EXEMPT_COMMANDS, DEFAULT_EXEMPT_TOOLS } from './exemptions.js';

/** Options of {@link StepLoopDetector}; every threshold has a documented default. */
export interface StepLoopDetectorOptions {
  /**
   * Per-run switch: `false` makes `observe` return `continue` and record nothing.
   * @default true
   */
  enabled?: boolean;
  /**
   * Identical action + observation (non-failure) occurrences, with nothing fresh between, that make a
   * `repeated_action` loop. Integer ≥ 2.
   * @default 3
   */
  repeatThreshold?: number;
  /**
   * Failures of the same action with the same normalised error signature that make a `same_error` loop.
   * Integer ≥ 2.
   * @default 3
   */
  sameErrorThreshold?: number;
  /**
   * Full A-B repetitions that make an `oscillation` (2 = A, B, A, B). Integer ≥ 2.
   * @default 2
   */
  oscillationRepeats?: number;
  /**
   * Full repetitions of a cycle of 3..`maxCycleLength` turns that make a `cycle` (2 = A, B, C, A, B, C).
   * Integer ≥ 2.
   * @default 2
   */
  cycleRepeats?: number;
  /**
   * Longest cycle looked for. Integer 3..8.
   * @default 5
   */
  maxCycleLength?: number;
  /**
   * Identical messages, with no fresh turn between, that make a `repeated_message` loop. Integer ≥ 2.
   * @default 3
   */
  messageRepeatThreshold?: number;
  /**
   * Occurrences of one line or sentence inside one message that make `chanting`. Integer ≥ 2.
   * @default 10
   */
  chantRepeats?: number;
  /**
   * Least share of the message (by characters) the chanted segment must cover. 0 < share ≤ 1.
   * @default 0.5
   */
  chantShare?: number;
  /**
   * Rule hits after the nudge, with nothing fresh, that turn the nudge into a stop. Integer ≥ 1.
   * @default 2
   */
  stopAfter?: number;
  /**
   * Tools whose actions never count (and whose observations are skipped).
   * @default ['BashOutput', 'sleep', 'wait']
   */
  exemptTools?: readonly string[];
  /**
   * Patterns tested against an action's command text (its string input, else its JSON); a match
   * exempts the action and its observation.
   * @default DEFAULT_EXEMPT_COMMANDS (sleep, watch, wait, tail -f, gh run watch|view, gh pr checks, kubectl rollout status|wait)
   */
  exemptCommands?: readonly RegExp[];
  /**
   * Most steps kept as a verdict's evidence.
   * @default 10
   */
  maxEvidence?: number;
  /**
   * Where nudges and stops are recorded as context entries (`loop_nudge`, `loop_stop`). Needs `taskId`.
   * @default undefined (nothing recorded)
   */
  stateMachine?: StateMachine;
  /** The task the run works on; entries name it in `related_tasks`. @default undefined */
  taskId?: string;
  /** The run's id, stored in each entry's metadata. @default undefined */
  runId?: string;
  /** Source of time. @default systemClock */
  clock?: Clock;
  /** pino logger; the detector logs through `logger.child({ component: 'StepLoopDetector' })`. @default silent */
  logger?: Logger;
}

/** The numeric options in force, defaults applied ({@link StepLoopDetector.options}). */
export interface StepThresholds {
  repeatThreshold: number;
  sameErrorThreshold: number;
  oscillationRepeats: number;
  cycleRepeats: number;
  maxCycleLength: number;
  messageRepeatThreshold: number;
  chantRepeats: number;
  chantShare: number;
  stopAfter: number;
  maxEvidence: number;
}

const atLeastTwo = z.number().int().min(2);

/** zod schema of {@link StepLoopDetectorOptions}; unknown keys are rejected so that typos surface. */
export const stepLoopDetectorOptionsSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    repeatThreshold: atLeastTwo.default(3),
    sameErrorThreshold: atLeastTwo.default(3),
    oscillationRepeats: atLeastTwo.default(2),
    cycleRepeats: atLeastTwo.default(2),
    maxCycleLength: z.number().int().min(3).max(8).default(5),
    messageRepeatThreshold: atLeastTwo.default(3),
    chantRepeats: atLeastTwo.default(10),
    chantShare: z.number().gt(0).max(1).default(0.5),
    stopAfter: z.number().int().min(1).default(2),
    exemptTools: z.array(z.string().min(1)).readonly().default(DEFAULT_EXEMPT_TOOLS),
    exemptCommands: z.array(z.instanceof(RegExp)).readonly().default(DEFAULT_EXEMPT_COMMANDS),
    maxEvidence: z.number().int().positive().default(10),
    stateMachine: portSchema<StateMachine>('must implement StateMachine', 'addContextEntry').optional(),
    taskId: z.string().min(1).optional(),
    runId: z.string().min(1).optional(),
    clock: clockSchema.optional(),
    logger: loggerSchema.optional(),
  })
  .refine((options) => options.stateMachine === undefined || options.taskId !== undefined, {
    message: 'is required when stateMachine is given',
    path: ['taskId'],
  });
