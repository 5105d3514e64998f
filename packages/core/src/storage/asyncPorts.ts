import type { Attempt } from '../model/attempt.js';
import type { AttemptStore, StateMachine } from './ports.js';

/**
 * The promise-returning twin of a synchronous port: the same methods with the same parameters, each
 * returning a promise of what the synchronous method returns (and rejecting with what it throws).
 * Deriving the twins keeps one definition of every port method.
 * @example
 * type AsyncClock = AsyncPort<{ now(): number }>; // { now(): Promise<number> }
 */
export type AsyncPort<P> = {
  // NonNullable: an optional method (`recordRunTally?`) is made asynchronous too.
  [K in keyof P]: NonNullable<P[K]> extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : P[K];
};

/**
 * The asynchronous {@link StateMachine}: tasks, transitions and context entries on a store whose
 * client is asynchronous (PostgreSQL). Transactions belong to {@link AsyncStorage}.
 * @example
 * const task = await storage.stateMachine.upsertTask({ id: 'T1' });
 */
export type AsyncStateMachine = AsyncPort<Omit<StateMachine, 'transaction'>>;

/**
 * The asynchronous {@link AttemptStore}.
 * @example
 * await storage.attempts.append(attempt);
 */
export type AsyncAttemptStore = AsyncPort<AttemptStore>;

/**
 * The asynchronous ports that share one store: what an {@link AsyncStorage} transaction hands to its function.
 * @example
 * await storage.transaction(async (tx) => tx.attempts.listSince('T1', 0));
 */
export interface AsyncStoragePorts {
  /** Tasks, their transitions and the context entries. */
  readonly stateMachine: AsyncStateMachine;
  /** The attempts the loop detector judges. */
  readonly attempts: AsyncAttemptStore;
}

/**
 * Options of {@link AsyncStorage.transaction}.
 * @example
 * await storage.transaction(fn, { lockKey: 'T7' });
 */
export interface AsyncTransactionOptions {
  /**
   * Serialises the transaction against every other transaction with the same key, in every process
   * on the same store (PostgreSQL: `pg_advisory_xact_lock`), until it commits or rolls back. The
   * detectors pass the task id, so that judging a task and writing its recovery is one step. Any
   * non-empty text is a key (NUL included); an empty key is an `InvalidInputError`.
   * @default no lock beyond the store's own
   */
  lockKey?: string;
}

/**
 * {@link AsyncStoragePorts} plus the transaction that makes their writes commit together. Adapters:
 * `openPostgresStorage` in `@loopguard/postgres`, and {@link toAsyncStorage} over the memory and
 * SQLite storages (one contract suite runs on all three).
 *
 * `transaction(fn)` runs `fn` with the ports to use inside it; when `fn` rejects, none of its writes
 * stay and the rejection propagates unchanged. Inside `fn` use only `tx`: the storage's own ports
 * may wait for the transaction to end.
 *
 * @example
 * const outcome = await storage.transaction(async (tx) => {
 *   const attempts = await tx.attempts.listSince('T7', since);
 *   return attempts.length;
 * }, { lockKey: 'T7' });
 */
export interface AsyncStorage extends AsyncStoragePorts {
  /** Runs `fn` so that its writes through `tx` commit together or not at all; resolves to its value. */
  transaction<T>(fn: (tx: AsyncStoragePorts) => Promise<T>, options?: AsyncTransactionOptions): Promise<T>;
  /**
   * Optional: what `SharedLoopDetector.recordAttempt` does, in one step of the store's own. In a
   * transaction locked on `options.lockKey`, appends `attempt` stamped `max(attempt.timestamp, the
   * task's newest stored timestamp at or after options.since)` (the rule of `nextAttemptTimestamp`),
   * and resolves to the timestamp stored. An adapter that can do it in fewer round trips implements
   * it (PostgreSQL: one function call instead of five statements); without it, the detector runs the
   * same steps through {@link AsyncStorage.transaction}.
   * @example const stamped = await storage.appendInOrder?.(attempt, { since: now - window, lockKey: attempt.taskId });
   */
  appendInOrder?(attempt: Attempt, options: { since: number; lockKey: string }): Promise<number>;
}
