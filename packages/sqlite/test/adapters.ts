import {
  type AttemptStore,
  InMemoryStorage,
  ManualClock,
  type StateMachine,
  type Storage,
} from '@loopguard/core';
import { openLoopGuardDatabase } from '../src/index.js';

/** One storage adapter under test: both ports on shared storage, and a manual clock. */
export interface AdapterUnderTest {
  clock: ManualClock;
  stateMachine: StateMachine;
  attemptStore: AttemptStore;
  /** Both ports with their shared transaction. */
  storage: Storage;
  close(): void;
}

/** The start time of every test clock (the seed's dashboard time). */
export const T0 = 1_760_825_000_000;

/** Factories of every adapter the contract suite runs against. */
export const ADAPTERS: ReadonlyArray<{ name: string; create(): AdapterUnderTest }> = [
  {
    name: 'in-memory',
    create() {
      const clock = new ManualClock(T0);
      const storage = new InMemoryStorage({ clock });
      return {
        clock,
        stateMachine: storage.stateMachine,
        attemptStore: storage.attempts,
        storage,
        close() {},
      };
    },
  },
  {
    name: 'sqlite',
    create() {
      const clock = new ManualClock(T0);
      const store = openLoopGuardDatabase(':memory:', { clock });
      return {
        clock,
        stateMachine: store.stateMachine,
        attemptStore: store.attemptStore,
        storage: store.storage,
        close: () => store.close(),
      };
    },
  },
];
