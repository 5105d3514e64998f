import type { Clock, StateMachine } from '@loopguard/core';
import { InvalidInputError } from '@loopguard/core';
import type { GuardMonitor } from '@loopguard/core/guards';
import {
  clockSchema,
  describeValue,
  iterationStoreSchema,
  type Logger,
  loggerSchema,
  portSchema,
  stateMachineSchema,
} from '@loopguard/core/internal';
import type { IterationStore } from '@loopguard/core/iteration';
import { z } from 'zod';

/**
 * Options of {@link IterationSessions}.
 * @example new IterationSessions({ stateMachine, store: new SqliteIterationStore({ db }), clock })
 */
export interface IterationSessionsOptions {
  /** The core state machine: the task is moved to `in_progress`, `blocked` or `done` through it. */
  stateMachine: StateMachine;
  /** Where sessions, checkpoints and iteration history are kept. @default new InMemoryIterationStore() */
  store?: IterationStore;
  /** Source of time for checkpoints and history. @default systemClock */
  clock?: Clock;
  /** pino logger; logs through `logger.child({ component: 'IterationSessions' })`. @default silent */
  logger?: Logger;
  /**
   * Move the task to `in_progress` when a session starts (unless it already is).
   * @default true
   */
  markInProgress?: boolean;
  /**
   * Core's `GuardMonitor`, fed with every guard block (`recordTrigger`), every recorded validation
   * (`recordIteration`, the time since the iteration's checkpoint) and every accepted completion
   * (`recordCompletion`); its snapshot is `getGuardStatistics().monitor`. Share one monitor with a
   * `GuardSet` to see both in one place.
   * @default new GuardMonitor()
   */
  monitor?: GuardMonitor;
}

/** Validates {@link IterationSessionsOptions} (defaults applied). */
export const iterationSessionsOptionsSchema = z.strictObject({
  stateMachine: stateMachineSchema,
  store: iterationStoreSchema.optional(),
  clock: clockSchema().optional(),
  logger: loggerSchema().optional(),
  markInProgress: z.boolean().default(true),
  monitor: portSchema<GuardMonitor>('must be a GuardMonitor', 'snapshot').optional(),
});

/** Validates seed 000's `IterationConfig` as `startIteration` receives it. */
export const iterationConfigSchema = z.looseObject({
  maxIterations: z.number().int().min(1),
  completionPromises: z.array(z.string()),
  validationRules: z.array(z.unknown()).optional(),
  circuitBreakerThreshold: z.number().int().min(1).optional(),
});

/**
 * `value` as a plain object, or `undefined` when absent.
 * @throws InvalidInputError naming `name` when it is not a plain object.
 */
export function plainObjectOrUndefined(value: unknown, name: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidInputError(`${name} must be a plain object, got ${describeValue(value)}`);
  }
  return value as Record<string, unknown>;
}
