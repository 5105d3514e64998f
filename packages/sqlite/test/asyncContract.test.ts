import { ManualClock } from '@loopguard/core';
import { describeStorageContracts, T0 } from '@loopguard/core/testing';
import { asyncSqliteStorage, openLoopGuardDatabase } from '../src/index.js';

/** The port and detector contracts on SQLite: one database, seen synchronously and asynchronously. */
describeStorageContracts([
  {
    name: 'sqlite',
    async create() {
      const clock = new ManualClock(T0);
      const database = openLoopGuardDatabase(':memory:', { clock });
      const storage = asyncSqliteStorage(database);
      return {
        clock,
        storage,
        syncStorage: database.storage,
        ...storage,
        close: async () => database.close(),
      };
    },
  },
]);
