/**
 * The undo log behind the in-memory adapters' transactions. While a transaction runs, every write
 * records how to revert itself; a transaction that throws runs those steps newest first, so the
 * adapters hold exactly what they held before it. A nested transaction is a savepoint: its failure
 * reverts only its own writes. Outside a transaction nothing is recorded.
 *
 * @example
 * const journal = new UndoJournal();
 * const stateMachine = new InMemoryStateMachine({ journal });
 * journal.run(() => { stateMachine.upsertTask({ id: 'T1' }); throw new Error('undone'); });
 */
export class UndoJournal {
  private steps: (() => void)[] | null = null;

  /** Whether a transaction is running (writes record undo steps; compaction waits). */
  get active(): boolean {
    return this.steps !== null;
  }

  /** Records how to revert the write just made; ignored outside a transaction. */
  record(undo: () => void): void {
    this.steps?.push(undo);
  }

  /** Runs `fn` as a transaction (a savepoint when one is running) and returns its value. */
  run<T>(fn: () => T): T {
    const outer = this.steps === null;
    const steps = this.steps ?? [];
    const mark = steps.length;
    this.steps = steps;
    try {
      return fn();
    } catch (error) {
      while (steps.length > mark) (steps.pop() as () => void)();
      throw error;
    } finally {
      if (outer) this.steps = null;
    }
  }

  /**
   * {@link run} for an asynchronous `fn`: its writes until the promise settles form one transaction.
   * The caller keeps other writers out meanwhile (the asynchronous storage serialises its transactions).
   */
  async runAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.steps !== null) throw new Error('UndoJournal.runAsync cannot nest inside another transaction');
    const steps: (() => void)[] = [];
    this.steps = steps;
    try {
      return await fn();
    } catch (error) {
      while (steps.length > 0) (steps.pop() as () => void)();
      throw error;
    } finally {
      this.steps = null;
    }
  }
}
