import { systemClock } from '../kernel/clock.js';
import { InvalidInputError } from '../kernel/errors.js';
import { UndoJournal } from '../kernel/UndoJournal.js';
import { assertNonEmptyString, describeValue } from '../kernel/validate.js';
import type {
  AsyncAttemptStore,
  AsyncStateMachine,
  AsyncStorage,
  AsyncStoragePorts,
  AsyncTransactionOptions,
} from '../storage/asyncPorts.js';
import type { AttemptStore, StateMachine } from '../storage/ports.js';
import type { StoragePorts } from '../storage/storage.js';
import { InMemoryAttemptStore } from './InMemoryAttemptStore.js';
import { InMemoryStateMachine } from './InMemoryStateMachine.js';
import type { InMemoryStorageOptions } from './InMemoryStorage.js';

const STATE_MACHINE_METHODS = [
  'getTask',
  'listTasks',
  'upsertTask',
  'transition',
  'listTaskEvents',
  'addContextEntry',
  'listContextEntries',
  'recordRunTally',
] as const satisfies readonly (keyof AsyncStateMachine)[];

const ATTEMPT_STORE_METHODS = [
  'append',
  'appendMany',
  'listSince',
  'listRecent',
  'clear',
  'prune',
  'summarize',
  'summarizePage',
] as const satisfies readonly (keyof AsyncAttemptStore)[];

/**
 * Runs `fn` (which calls the synchronous ports) as one transaction of the underlying store that stays
 * open until the promise settles: commits when it resolves, rolls back when it rejects.
 * @example
 * const runInTransaction: AsyncTransactionRunner = (fn) => journal.runAsync(fn);
 */
export type AsyncTransactionRunner = <T>(fn: () => Promise<T>) => Promise<T>;

type Gate = <T>(op: () => T) => Promise<T>;

function promisified<P extends object>(port: P, methods: readonly string[], gate: Gate): unknown {
  const twin: Record<string, unknown> = {};
  for (const name of methods) {
    const method = (port as Record<string, ((...args: unknown[]) => unknown) | undefined>)[name];
    // an optional method the port lacks stays absent from its twin
    if (typeof method !== 'function') continue;
    twin[name] = (...args: unknown[]) => gate(() => method.apply(port, args));
  }
  return Object.freeze(twin);
}

/**
 * The {@link AsyncStorage} twin of synchronous ports (memory, SQLite), so that asynchronous code —
 * `SharedLoopDetector`, the asynchronous contract suite — runs on every adapter. Transactions of the
 * twin run one at a time (a call made outside a transaction waits for the running one), and each is
 * one transaction of the underlying store, opened and closed by `runInTransaction`. `lockKey` needs
 * nothing more: the transactions are already serialised.
 *
 * @param ports - the synchronous ports on one store.
 * @param runInTransaction - opens the store's transaction around an asynchronous function.
 * @example
 * const storage = toAsyncStorage(db.storage, sqliteTransactionRunner(db.db));
 */
export function toAsyncStorage(ports: StoragePorts, runInTransaction: AsyncTransactionRunner): AsyncStorage {
  let running: Promise<unknown> | null = null;
  const outside: Gate = async (op) => {
    while (running !== null) await running.catch(() => undefined);
    return op();
  };
  const inside: Gate = async (op) => op();
  const twinOf = (gate: Gate): AsyncStoragePorts => ({
    stateMachine: promisified(ports.stateMachine, STATE_MACHINE_METHODS, gate) as AsyncStateMachine,
    attempts: promisified(ports.attempts, ATTEMPT_STORE_METHODS, gate) as AsyncAttemptStore,
  });
  const direct = twinOf(outside);
  const tx = twinOf(inside);
  return {
    ...direct,
    async transaction<T>(
      fn: (tx: AsyncStoragePorts) => Promise<T>,
      options: AsyncTransactionOptions = {},
    ): Promise<T> {
      if (typeof fn !== 'function')
        throw new InvalidInputError(`fn must be a function, got ${describeValue(fn)}`);
      if (options.lockKey !== undefined) assertNonEmptyString(options.lockKey, 'options.lockKey');
      while (running !== null) await running.catch(() => undefined);
      const run = runInTransaction(() => fn(tx));
      running = run;
      try {
        return await run;
      } finally {
        running = null;
      }
    },
  };
}

/**
 * Both ports in memory behind the asynchronous interface, with transactions that really roll back:
 * the in-memory twin of `@loopguard/postgres` for tests and single-process use of `SharedLoopDetector`.
 * @example
 * const detector = new SharedLoopDetector(asyncInMemoryStorage(), { maxAttempts: 3 });
 */
export function asyncInMemoryStorage(options: InMemoryStorageOptions = {}): AsyncStorage {
  const journal = new UndoJournal();
  const stateMachine: StateMachine = new InMemoryStateMachine({
    clock: options.clock ?? systemClock,
    journal,
  });
  const attempts: AttemptStore = new InMemoryAttemptStore({ journal });
  return toAsyncStorage({ stateMachine, attempts }, (fn) => journal.runAsync(fn));
}
