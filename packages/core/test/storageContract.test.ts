import { describeStorageContracts, T0 } from '../src/entries/testing.js';
import { ManualClock } from '../src/index.js';
import { UndoJournal } from '../src/kernel/UndoJournal.js';
import { InMemoryAttemptStore } from '../src/memory/InMemoryAttemptStore.js';
import { InMemoryStateMachine } from '../src/memory/InMemoryStateMachine.js';
import { toAsyncStorage } from '../src/memory/toAsyncStorage.js';
import type { StoragePorts } from '../src/storage/storage.js';

/** The port and detector contracts on the in-memory adapters: one store, seen synchronously and asynchronously. */
describeStorageContracts([
  {
    name: 'memory',
    async create() {
      const clock = new ManualClock(T0);
      const journal = new UndoJournal();
      const ports: StoragePorts = {
        stateMachine: new InMemoryStateMachine({ clock, journal }),
        attempts: new InMemoryAttemptStore({ journal }),
      };
      const storage = toAsyncStorage(ports, (fn) => journal.runAsync(fn));
      const syncStorage = {
        ...ports,
        transaction: <T>(fn: (tx: StoragePorts) => T) => journal.run(() => fn(ports)),
      };
      return { clock, storage, syncStorage, ...storage, close: async () => undefined };
    },
  },
]);
