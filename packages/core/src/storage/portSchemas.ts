import { z } from 'zod';
import { InvalidInputError } from '../kernel/errors.js';
import { portSchema } from '../kernel/optionSchemas.js';
import { describeValue } from '../kernel/validate.js';
import type { IterationStore } from './iterationStore.js';
import type { AttemptStore, StateMachine } from './ports.js';
import type { Storage } from './storage.js';

/** Every method of a port, checked at compile time against its interface: none may be left out. */
function methodsOf<T>(methods: Record<keyof T, boolean>): string[] {
  return Object.keys(methods).filter((name) => methods[name as keyof T]);
}

/** Every method of {@link StateMachine}. */
export const STATE_MACHINE_METHODS = methodsOf<StateMachine>({
  getTask: true,
  listTasks: true,
  upsertTask: true,
  transition: true,
  listTaskEvents: true,
  addContextEntry: true,
  listContextEntries: true,
  // optional: a store of one's own without it still guards (its runs show no tally)
  recordRunTally: false,
  transaction: true,
});

/** The methods of {@link AttemptStore} a synchronous runner calls (the runtime check of `LoopDetector`). */
export const ATTEMPT_STORE_METHODS = methodsOf<AttemptStore>({
  append: true,
  appendMany: true,
  listSince: true,
  // read by the asynchronous runner only (cross-task cycles judged from storage)
  listRecent: false,
  clear: true,
  prune: true,
  summarize: true,
  summarizePage: true,
});

/** Every method of {@link IterationStore}. */
export const ITERATION_STORE_METHODS = methodsOf<IterationStore>({
  createSession: true,
  getSession: true,
  listSessions: true,
  endSession: true,
  addCheckpoint: true,
  listCheckpoints: true,
  latestCheckpoint: true,
  appendHistory: true,
  listHistory: true,
});

/**
 * The one check of an injected {@link StateMachine}: an object with every method of the port.
 * @example z.strictObject({ stateMachine: stateMachineSchema })
 */
export const stateMachineSchema = portSchema<StateMachine>(
  'must implement StateMachine',
  ...STATE_MACHINE_METHODS,
);

/**
 * The one check of an injected {@link AttemptStore}: an object with every method of the port.
 * @example z.strictObject({ attemptStore: attemptStoreSchema.optional() })
 */
export const attemptStoreSchema = portSchema<AttemptStore>(
  'must implement AttemptStore',
  ...ATTEMPT_STORE_METHODS,
);

/**
 * The one check of an injected {@link IterationStore}: an object with every method of the port.
 * @example z.strictObject({ store: iterationStoreSchema.optional() })
 */
export const iterationStoreSchema = portSchema<IterationStore>(
  'must implement IterationStore',
  ...ITERATION_STORE_METHODS,
);

/**
 * The one check of an injected {@link Storage}: `transaction()`, and both ports complete. The value
 * itself is passed on (never a copy).
 * @example storageSchema.parse(openLoopGuardDatabase(':memory:').storage)
 */
export const storageSchema = z.any().superRefine((value, ctx) => {
  const transaction = portSchema('must implement Storage', 'transaction').safeParse(value);
  if (!transaction.success) {
    ctx.addIssue({
      code: 'custom',
      message: transaction.error.issues[0]?.message ?? 'must implement Storage',
    });
    return;
  }
  for (const [key, schema] of [
    ['stateMachine', stateMachineSchema],
    ['attempts', attemptStoreSchema],
  ] as const) {
    const port = schema.safeParse((value as Record<string, unknown>)[key]);
    if (!port.success) {
      ctx.addIssue({ code: 'custom', path: [key], message: port.error.issues[0]?.message ?? 'is invalid' });
    }
  }
}) as unknown as z.ZodType<Storage>;

/** Throws an InvalidInputError naming `name` when `value` fails the port's schema. */
export function checkPort(schema: z.ZodType, value: unknown, name: string): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${name}.${issue.path.join('.')}` : name;
  throw new InvalidInputError(`${where} ${issue?.message ?? 'is invalid'}, got ${describeValue(value)}`);
}
