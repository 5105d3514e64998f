import { type Clock, systemClock } from '../kernel/clock.js';
import { UndoJournal } from '../kernel/UndoJournal.js';
import type { Storage, StoragePorts } from '../storage/storage.js';
import { InMemoryAttemptStore } from './InMemoryAttemptStore.js';
import { InMemoryStateMachine } from './InMemoryStateMachine.js';

/** Options of {@link InMemoryStorage}. */
export interface InMemoryStorageOptions {
  /** Source of task and context-entry timestamps. @default systemClock */
  clock?: Clock;
}

/**
 * Both ports kept in memory, with a transaction that really rolls back: every write inside it
 * records an undo step, and a transaction that throws reverts them all (see {@link UndoJournal}).
 *
 * @example
 * const storage = new InMemoryStorage({ clock: new ManualClock() });
 * const detector = new LoopDetector(storage, { maxAttempts: 3 });
 */
export class InMemoryStorage implements Storage {
  /** The state machine; its own `transaction` is this storage's. */
  readonly stateMachine: InMemoryStateMachine;
  /** The attempt store. */
  readonly attempts: InMemoryAttemptStore;
  private readonly journal = new UndoJournal();

  /** @param options - see {@link InMemoryStorageOptions}. */
  constructor(options: InMemoryStorageOptions = {}) {
    this.stateMachine = new InMemoryStateMachine({
      clock: options.clock ?? systemClock,
      journal: this.journal,
    });
    this.attempts = new InMemoryAttemptStore({ journal: this.journal });
  }

  transaction<T>(fn: (tx: StoragePorts) => T): T {
    return this.journal.run(() => fn(this));
  }
}
