import type { ManualClock } from '../kernel/clock.js';
import type { Attempt } from '../model/attempt.js';
import type { AsyncAttemptStore, AsyncStateMachine, AsyncStorage } from '../storage/asyncPorts.js';
import type { Storage } from '../storage/storage.js';

/**
 * One storage adapter under a contract suite, seen through the asynchronous ports (a synchronous
 * adapter is wrapped with `toAsyncStorage`, so the same cases check it), with the manual clock it
 * was opened with.
 */
export interface ContractSubject {
  /** The clock the storage stamps with, at {@link T0} when opened. */
  clock: ManualClock;
  /** The state machine port. */
  stateMachine: AsyncStateMachine;
  /** The attempt store port. */
  attempts: AsyncAttemptStore;
  /** Both ports with their shared transaction. */
  storage: AsyncStorage;
  /** The same store's synchronous ports, when the adapter has them (memory, SQLite): `LoopDetector` runs on them. */
  syncStorage?: Storage;
  /** Closes the storage (and drops what it holds). */
  close(): Promise<void>;
}

/** Opens a fresh {@link ContractSubject} for each test. */
export type ContractFactory = () => Promise<ContractSubject>;

/** The start time of every contract clock (the seed's dashboard time). */
export const T0 = 1_760_825_000_000;

/**
 * An attempt for the contract cases: in progress, no blockers or work, session `s`.
 * @example attempt('T1', T0, { status: 'done' })
 */
export function attempt(taskId: string, timestamp: number, overrides: Partial<Attempt> = {}): Attempt {
  return {
    taskId,
    timestamp,
    status: 'in_progress',
    blockers: [],
    completedWork: [],
    sessionId: 's',
    ...overrides,
  };
}
