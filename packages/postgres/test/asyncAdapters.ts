import {
  type AsyncAttemptStore,
  type AsyncStateMachine,
  type AsyncStorage,
  asyncInMemoryStorage,
  ManualClock,
} from '@loopguard/core';
import { asyncSqliteStorage, openLoopGuardDatabase } from '@loopguard/sqlite';
import { openFresh, useCluster } from './cluster.js';

/** One asynchronous storage adapter under test, with a manual clock. */
export interface AsyncAdapterUnderTest {
  clock: ManualClock;
  stateMachine: AsyncStateMachine;
  attempts: AsyncAttemptStore;
  /** Both ports with their shared transaction. */
  storage: AsyncStorage;
  close(): Promise<void>;
}

/** The start time of every test clock (the seed's dashboard time). */
export const T0 = 1_760_825_000_000;

const cluster = useCluster();

function under(clock: ManualClock, storage: AsyncStorage, close: () => Promise<void>): AsyncAdapterUnderTest {
  return { clock, stateMachine: storage.stateMachine, attempts: storage.attempts, storage, close };
}

/** Factories of every asynchronous adapter (one PostgreSQL schema per test). */
export const ASYNC_ADAPTERS: ReadonlyArray<{ name: string; create(): Promise<AsyncAdapterUnderTest> }> = [
  {
    name: 'in-memory',
    async create() {
      const clock = new ManualClock(T0);
      return under(clock, asyncInMemoryStorage({ clock }), async () => undefined);
    },
  },
  {
    name: 'sqlite',
    async create() {
      const clock = new ManualClock(T0);
      const database = openLoopGuardDatabase(':memory:', { clock });
      return under(clock, asyncSqliteStorage(database), async () => database.close());
    },
  },
  {
    name: 'postgres',
    async create() {
      const clock = new ManualClock(T0);
      const storage = await openFresh(cluster(), { clock });
      return under(clock, storage, () => storage.close());
    },
  },
];
