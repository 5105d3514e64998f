import { ManualClock } from '@loopguard/core';
import { describeStorageContracts, T0 } from '@loopguard/core/testing';
import { openFresh, useCluster } from './cluster.js';

/** The port and detector contracts on PostgreSQL (a fresh schema per test on a throwaway server). */
const cluster = useCluster();

describeStorageContracts([
  {
    name: 'postgres',
    syncSkip:
      'PostgreSQL has only asynchronous ports; LoopDetector runs on synchronous ones (memory, SQLite)',
    async create() {
      const clock = new ManualClock(T0);
      const storage = await openFresh(cluster(), { clock });
      return {
        clock,
        storage,
        stateMachine: storage.stateMachine,
        attempts: storage.attempts,
        close: () => storage.close(),
      };
    },
  },
]);
