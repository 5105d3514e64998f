import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../kernel/errors.js';
import { attempt, type ContractSubject, T0 } from './contractSubject.js';

/**
 * The contract of a storage's transaction: commit, full rollback of both ports, isolation, lock keys.
 * @param create - opens a fresh adapter under test (empty storage, manual clock at {@link T0}) for each test.
 */
export function transactionContract(create: () => Promise<ContractSubject>): void {
  let a: ContractSubject;
  beforeEach(async () => {
    a = await create();
  });
  afterEach(async () => {
    await a.close();
  });
  describe('AsyncStorage: transaction', () => {
    /** Everything the ports hold about the tasks used below, for before/after comparisons. */
    const snapshot = async () => ({
      tasks: await a.stateMachine.listTasks(),
      events: [await a.stateMachine.listTaskEvents('T1'), await a.stateMachine.listTaskEvents('T2')],
      entries: await a.stateMachine.listContextEntries(),
      attempts: [await a.attempts.listSince('T1', 0), await a.attempts.listSince('T2', 0)],
      summary: [...(await a.attempts.summarize(0))].sort(([x], [y]) => x.localeCompare(y)),
    });
    const seed = async () => {
      await a.stateMachine.upsertTask({ id: 'T1', title: 'one' });
      await a.stateMachine.addContextEntry({
        entryType: 'learning',
        topic: 'x',
        content: 'c',
        relatedTasks: ['T1'],
      });
      await a.attempts.append(attempt('T1', T0 - 10_000));
      await a.attempts.append(attempt('T1', T0));
      await a.attempts.append(attempt('T2', T0));
    };

    it('hands fn the ports, commits what fn wrote and resolves to its value', async () => {
      const value = await a.storage.transaction(async (tx) => {
        await tx.stateMachine.upsertTask({ id: 'T1' });
        await tx.attempts.append(attempt('T1', T0));
        return 'ok';
      });
      expect(value).toBe('ok');
      expect(await a.stateMachine.getTask('T1')).toBeDefined();
      expect(await a.attempts.listSince('T1', 0)).toHaveLength(1);
    });

    it('reverts every kind of write of both ports when fn rejects, and rejects with the error unchanged', async () => {
      await seed();
      const before = await snapshot();
      const boom = new Error('boom');
      const settled = a.storage.transaction(
        async (tx) => {
          await tx.stateMachine.upsertTask({ id: 'T2', title: 'two' });
          await tx.stateMachine.upsertTask({ id: 'T1', title: 'renamed', metadata: { v: 2 } });
          await tx.stateMachine.transition('T1', 'blocked', 'stuck');
          await tx.stateMachine.addContextEntry({
            entryType: 'decision',
            topic: 'y',
            content: 'd',
            relatedTasks: ['T1', 'T2'],
          });
          await tx.attempts.append(attempt('T1', T0 + 1));
          await tx.attempts.appendMany([attempt('T2', T0 + 1), attempt('T3', T0 + 1)]);
          expect(await tx.attempts.prune(T0 - 1, 10)).toBe(1);
          expect(await tx.attempts.clear('T2')).toBe(2);
          await tx.attempts.append(attempt('T2', T0 + 2));
          throw boom;
        },
        { lockKey: 'T1' },
      );
      await expect(settled).rejects.toBe(boom);
      expect(await snapshot()).toEqual(before);
      expect(await a.attempts.listSince('T3', 0)).toEqual([]);
      const next = await a.stateMachine.addContextEntry({ entryType: 'learning', topic: 'z', content: 'e' });
      expect(before.entries.map((e) => e.id)).not.toContain(next.id);
    });

    it('a call made outside the transaction sees its writes only after commit', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let inside: Promise<void> = Promise.resolve();
      const running = a.storage.transaction(async (tx) => {
        await tx.stateMachine.upsertTask({ id: 'T1' });
        inside = gate;
        await gate;
        await tx.attempts.append(attempt('T1', T0));
      });
      await new Promise((resolve) => setImmediate(resolve));
      const outside = a.attempts.listSince('T1', 0);
      release();
      await running;
      await inside;
      // memory and SQLite wait for the transaction; PostgreSQL reads the last committed state
      expect((await outside).length === 0 || (await outside).length === 1).toBe(true);
      expect(await a.attempts.listSince('T1', 0)).toHaveLength(1);
    });

    it('rejects a bad function or lock key before running anything', async () => {
      await expect(a.storage.transaction(42 as never)).rejects.toThrow(InvalidInputError);
      await expect(a.storage.transaction(async () => 1, { lockKey: '' })).rejects.toThrow(/lockKey/);
    });

    it('any non-empty text is a lock key: NUL, quotes, non-ASCII and long keys lock and commit', async () => {
      const keys = ['cycle:a\u0000b', 'T\'1"; --', 'tâche ✓ 任务', 'k'.repeat(5000), '\\u0000'];
      for (const [i, lockKey] of keys.entries()) {
        await a.storage.transaction((tx) => tx.attempts.append(attempt(`T${i}`, T0)), { lockKey });
      }
      expect((await a.attempts.summarize(0)).size).toBe(keys.length);
    });

    it('transactions on the same lock key run one after the other', async () => {
      await a.stateMachine.upsertTask({ id: 'T1', metadata: { n: 0 } });
      const increment = () =>
        a.storage.transaction(
          async (tx) => {
            const task = await tx.stateMachine.getTask('T1');
            const n = (task?.metadata.n as number) + 1;
            await new Promise((resolve) => setImmediate(resolve));
            await tx.stateMachine.upsertTask({ id: 'T1', metadata: { n } });
          },
          { lockKey: 'T1' },
        );
      await Promise.all(Array.from({ length: 8 }, increment));
      expect((await a.stateMachine.getTask('T1'))?.metadata).toEqual({ n: 8 });
    });
  });
}
