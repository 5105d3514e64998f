import type { AttemptStore, StateMachine } from './ports.js';

/**
 * The ports that share one store: what a transaction hands to its function.
 * @example
 * storage.transaction((tx) => tx.attempts.append(attempt));
 */
export interface StoragePorts {
  /** Tasks, their transitions and the context entries. */
  readonly stateMachine: StateMachine;
  /** The attempts the loop detector judges. */
  readonly attempts: AttemptStore;
}

/**
 * StoragePorts plus the transaction that makes their writes commit together. Adapters:
 * {@link InMemoryStorage} in core, `openLoopGuardDatabase(path).storage` in `@loopguard/sqlite`.
 *
 * `transaction(fn)` runs `fn` with the ports to write through; when `fn` throws, none of its writes
 * stay and the error propagates unchanged. Transactions nest (the inner one joins the outer one as a
 * savepoint) and serialise against other writers of the same store.
 *
 * @example
 * const detector = new LoopDetector(new InMemoryStorage());
 */
export interface Storage extends StoragePorts {
  /** Runs `fn` so that its writes through `tx` commit together or not at all; returns its value. */
  transaction<T>(fn: (tx: StoragePorts) => T): T;
}

/**
 * A {@link Storage} over a state machine and an attempt store that share one store, whose
 * transaction is the state machine's (the SQLite adapters' `transaction` covers both ports).
 *
 * @example
 * const storage = storageOf(db.stateMachine, db.attemptStore);
 */
export function storageOf(stateMachine: StateMachine, attempts: AttemptStore): Storage {
  const ports: StoragePorts = { stateMachine, attempts };
  return {
    stateMachine,
    attempts,
    transaction: (fn) => stateMachine.transaction(() => fn(ports)),
  };
}

/** Whether `value` has the shape of a {@link Storage} (rather than a bare state machine). */
export function isStorage(value: unknown): value is Storage {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<Storage>;
  return (
    typeof candidate.transaction === 'function' &&
    typeof candidate.stateMachine === 'object' &&
    candidate.stateMachine !== null &&
    typeof candidate.attempts === 'object' &&
    candidate.attempts !== null
  );
}
