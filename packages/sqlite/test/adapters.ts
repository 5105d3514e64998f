import {
  type AttemptStore,
  InMemoryAttemptStore,
  InMemoryStateMachine,
  ManualClock,
  type StateMachine,
} from '@loopguard/core';
import { openLoopGuardDatabase } from '../src/index.js';

/** One storage adapter under test: both ports on shared storage, and a manual clock. */
export interface AdapterUnderTest {
  clock: ManualClock;
  stateMachine: StateMachine;
  attemptStore: AttemptStore;
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
      return {
        clock,
        stateMachine: new InMemoryStateMachine({ clock }),
        attemptStore: new InMemoryAttemptStore(),
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
        close: () => store.close(),
      };
    },
  },
];
