import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Attempt } from '../model/attempt.js';
import { attempt, type ContractSubject, T0 } from './contractSubject.js';

/**
 * The contract of an attempt store.
 * @param create - opens a fresh adapter under test (empty storage, manual clock at {@link T0}) for each test.
 */
export function attemptStoreContract(create: () => Promise<ContractSubject>): void {
  let a: ContractSubject;
  beforeEach(async () => {
    a = await create();
  });
  afterEach(async () => {
    await a.close();
  });
  describe('AttemptStore', () => {
    it('append and listSince: per task, oldest first, since inclusive', async () => {
      await a.attempts.append(
        attempt('T1', T0 + 1, { status: 'blocked', blockers: ['b1', 'b2'], sessionId: 's1' }),
      );
      await a.attempts.append(attempt('T2', T0 + 2));
      await a.attempts.append(attempt('T1', T0 + 3, { completedWork: ['w'] }));
      expect(await a.attempts.listSince('T1', 0)).toEqual([
        attempt('T1', T0 + 1, { status: 'blocked', blockers: ['b1', 'b2'], sessionId: 's1' }),
        attempt('T1', T0 + 3, { completedWork: ['w'] }),
      ]);
      expect(await a.attempts.listSince('T1', T0 + 3)).toEqual([
        attempt('T1', T0 + 3, { completedWork: ['w'] }),
      ]);
      expect(await a.attempts.listSince('T1', T0 + 4)).toEqual([]);
      expect(await a.attempts.listSince('unknown', 0)).toEqual([]);
    });

    it('appendMany appends in order', async () => {
      const batch = [1, 2, 3].map((i) => attempt(i % 2 ? 'odd' : 'even', T0 + i, { sessionId: `s${i}` }));
      await a.attempts.appendMany(batch);
      await a.attempts.appendMany([]);
      expect((await a.attempts.listSince('odd', 0)).map((x) => x.sessionId)).toEqual(['s1', 's3']);
      expect((await a.attempts.listSince('even', 0)).map((x) => x.sessionId)).toEqual(['s2']);
    });

    it('keeps the order of blockers and completed work, and duplicates', async () => {
      const stored = attempt('T', T0, { blockers: ['z', 'a', 'z'], completedWork: ['2', '1'] });
      await a.attempts.append(stored);
      const [back] = await a.attempts.listSince('T', 0);
      expect(back?.blockers).toEqual(['z', 'a', 'z']);
      expect(back?.completedWork).toEqual(['2', '1']);
    });

    it('clear deletes one task and returns the count', async () => {
      await a.attempts.appendMany([attempt('T1', T0), attempt('T1', T0 + 1), attempt('T2', T0 + 2)]);
      expect(await a.attempts.clear('T1')).toBe(2);
      expect(await a.attempts.clear('T1')).toBe(0);
      expect(await a.attempts.listSince('T1', 0)).toEqual([]);
      expect(await a.attempts.listSince('T2', 0)).toHaveLength(1);
    });

    it('prune deletes at most limit attempts older than before, in bounded batches', async () => {
      const batch: Attempt[] = [];
      for (let i = 0; i < 10; i++) batch.push(attempt(`T${i % 3}`, T0 + i));
      await a.attempts.appendMany(batch);
      expect(await a.attempts.prune(T0 + 7, 3)).toBe(3);
      expect(await a.attempts.prune(T0 + 7, 3)).toBe(3);
      expect(await a.attempts.prune(T0 + 7, 3)).toBe(1);
      expect(await a.attempts.prune(T0 + 7, 3)).toBe(0);
      const lists = await Promise.all(['T0', 'T1', 'T2'].map((t) => a.attempts.listSince(t, 0)));
      const left = lists.flat().map((x) => x.timestamp - T0);
      expect(left.sort((x, y) => x - y)).toEqual([7, 8, 9]);
    });

    it('summarize gives count and newest time per task since a time', async () => {
      await a.attempts.appendMany([
        attempt('T1', T0),
        attempt('T1', T0 + 5),
        attempt('T2', T0 + 1),
        attempt('T3', T0 - 9),
      ]);
      expect(await a.attempts.summarize(T0)).toEqual(
        new Map([
          ['T1', { attemptCount: 2, lastAttempt: T0 + 5 }],
          ['T2', { attemptCount: 1, lastAttempt: T0 + 1 }],
        ]),
      );
      expect(await a.attempts.summarize(T0 + 100)).toEqual(new Map());
    });

    it('stores values containing quotes, semicolons and SQL verbatim', async () => {
      // no \u0000: PostgreSQL cannot store NUL in text (see postgres.test.ts)
      const nasty = `T'; DROP TABLE attempts; --" ✓`;
      const record = attempt(nasty, T0, {
        status: 'blocked',
        blockers: [`it's "blocked"; DELETE FROM tasks;`, '%_\\'],
        completedWork: ["Robert'); DROP TABLE students;--"],
        sessionId: `' OR 1=1 --`,
      });
      await a.attempts.append(record);
      expect(await a.attempts.listSince(nasty, 0)).toEqual([record]);
      expect(await a.attempts.listSince('T', 0)).toEqual([]);
      const task = await a.stateMachine.upsertTask({
        id: nasty,
        title: `"; SELECT 1; '`,
        metadata: { q: "'" },
      });
      expect(await a.stateMachine.getTask(nasty)).toEqual(task);
      const entry = await a.stateMachine.addContextEntry({
        entryType: 'decision',
        topic: `x' OR '1'='1`,
        content: 'c',
        relatedTasks: [nasty],
      });
      expect(await a.stateMachine.listContextEntries({ taskId: nasty, topics: [`x' OR '1'='1`] })).toEqual([
        entry,
      ]);
    });
  });
}
