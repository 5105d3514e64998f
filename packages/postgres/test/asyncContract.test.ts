import {
  type Attempt,
  type ContextEntry,
  InvalidInputError,
  RECOVERY_TOPICS,
  SharedLoopDetector,
  type SharedLoopDetectorOptions,
  StorageError,
  type TaskStatus,
} from '@loopguard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ASYNC_ADAPTERS, type AsyncAdapterUnderTest, T0 } from './asyncAdapters.js';

// The storage contract of packages/sqlite/test/contract.test.ts, for the asynchronous ports: the
// same cases (awaited), on the in-memory twin, the SQLite twin and PostgreSQL.

function attempt(taskId: string, timestamp: number, overrides: Partial<Attempt> = {}): Attempt {
  return {
    taskId,
    timestamp,
    status: 'in_progress',
    blockers: [],
    completedWork: [],
    sessionId: 's',
    ...overrides,
  };
}

describe.each(ASYNC_ADAPTERS)('asynchronous storage contract: $name', ({ create }) => {
  let a: AsyncAdapterUnderTest;
  beforeEach(async () => {
    a = await create();
  });
  afterEach(async () => {
    await a.close();
  });

  describe('StateMachine: tasks', () => {
    it('upsertTask creates a task with defaults and a "created" event', async () => {
      const task = await a.stateMachine.upsertTask({ id: 'T1' });
      expect(task).toEqual({
        id: 'T1',
        title: '',
        status: 'pending',
        blockedReason: null,
        metadata: {},
        createdAt: T0,
        updatedAt: T0,
      });
      expect(await a.stateMachine.getTask('T1')).toEqual(task);
      expect(await a.stateMachine.listTaskEvents('T1')).toEqual([
        { taskId: 'T1', fromStatus: null, toStatus: 'pending', reason: 'created', timestamp: T0 },
      ]);
    });

    it('upsertTask takes title, status and metadata when creating', async () => {
      const task = await a.stateMachine.upsertTask({
        id: 'T2',
        title: 'Build it',
        status: 'in_progress',
        metadata: { owner: 'ada', nested: { n: 1, list: [1, 'two', null] } },
      });
      expect(task.title).toBe('Build it');
      expect(task.status).toBe('in_progress');
      expect(task.metadata).toEqual({ owner: 'ada', nested: { n: 1, list: [1, 'two', null] } });
      expect((await a.stateMachine.listTaskEvents('T2'))[0]?.toStatus).toBe('in_progress');
    });

    it('upsertTask on an existing task replaces title and metadata, keeps status and createdAt, adds no event', async () => {
      await a.stateMachine.upsertTask({ id: 'T1', title: 'old', metadata: { v: 1 } });
      await a.stateMachine.transition('T1', 'in_progress', 'picked');
      a.clock.advance(5000);
      const task = await a.stateMachine.upsertTask({
        id: 'T1',
        title: 'new',
        status: 'done',
        metadata: { v: 2 },
      });
      expect(task).toMatchObject({ title: 'new', status: 'in_progress', metadata: { v: 2 } });
      expect(task.createdAt).toBe(T0);
      expect(task.updatedAt).toBe(T0 + 5000);
      expect(await a.stateMachine.listTaskEvents('T1')).toHaveLength(2);
      const kept = await a.stateMachine.upsertTask({ id: 'T1' });
      expect(kept).toMatchObject({ title: 'new', metadata: { v: 2 } });
    });

    it('getTask returns undefined for an unknown id', async () => {
      expect(await a.stateMachine.getTask('nope')).toBeUndefined();
    });

    it('listTasks returns tasks in creation order, optionally filtered by status', async () => {
      for (const id of ['c', 'a', 'b']) await a.stateMachine.upsertTask({ id });
      await a.stateMachine.upsertTask({ id: 'a', title: 'updated later' });
      await a.stateMachine.transition('b', 'blocked', 'waiting');
      await a.stateMachine.transition('c', 'done', 'finished');
      expect((await a.stateMachine.listTasks()).map((t) => t.id)).toEqual(['c', 'a', 'b']);
      expect((await a.stateMachine.listTasks({ statuses: ['blocked', 'done'] })).map((t) => t.id)).toEqual([
        'c',
        'b',
      ]);
      expect((await a.stateMachine.listTasks({ statuses: ['pending'] })).map((t) => t.id)).toEqual(['a']);
      expect(await a.stateMachine.listTasks({ statuses: [] })).toEqual([]);
    });

    it('transition records from/to/reason/time; blocked sets blockedReason, any other status clears it', async () => {
      await a.stateMachine.upsertTask({ id: 'T1' });
      a.clock.advance(1);
      const blocked = await a.stateMachine.transition('T1', 'blocked', 'missing auth token');
      expect(blocked).toMatchObject({
        status: 'blocked',
        blockedReason: 'missing auth token',
        updatedAt: T0 + 1,
      });
      a.clock.advance(1);
      const resumed = await a.stateMachine.transition('T1', 'in_progress', 'token provided');
      expect(resumed).toMatchObject({ status: 'in_progress', blockedReason: null, updatedAt: T0 + 2 });
      expect(await a.stateMachine.getTask('T1')).toEqual(resumed);
      expect(await a.stateMachine.listTaskEvents('T1')).toEqual([
        { taskId: 'T1', fromStatus: null, toStatus: 'pending', reason: 'created', timestamp: T0 },
        {
          taskId: 'T1',
          fromStatus: 'pending',
          toStatus: 'blocked',
          reason: 'missing auth token',
          timestamp: T0 + 1,
        },
        {
          taskId: 'T1',
          fromStatus: 'blocked',
          toStatus: 'in_progress',
          reason: 'token provided',
          timestamp: T0 + 2,
        },
      ]);
      expect(await a.stateMachine.listTaskEvents('unknown')).toEqual([]);
    });

    it('transition of an unknown task throws StorageError task_not_found', async () => {
      const error = await (async () => {
        try {
          await a.stateMachine.transition('ghost', 'done', 'why');
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('task_not_found');
      expect(await a.stateMachine.listTaskEvents('ghost')).toEqual([]);
    });

    it('rejects bad input before writing anything', async () => {
      await a.stateMachine.upsertTask({ id: 'T1' });
      await expect(async () => a.stateMachine.upsertTask({ id: '' })).rejects.toThrow(InvalidInputError);
      await expect(async () =>
        a.stateMachine.upsertTask({ id: 'T2', status: 'finished' as TaskStatus }),
      ).rejects.toThrow(/task.status/);
      await expect(async () =>
        a.stateMachine.transition('T1', 'finished' as TaskStatus, 'r'),
      ).rejects.toThrow(InvalidInputError);
      await expect(async () => a.stateMachine.transition('T1', 'done', '')).rejects.toThrow(/reason/);
      expect((await a.stateMachine.listTasks()).map((t) => t.id)).toEqual(['T1']);
      expect((await a.stateMachine.getTask('T1'))?.status).toBe('pending');
      expect(await a.stateMachine.listTaskEvents('T1')).toHaveLength(1);
    });

    it('rejects metadata that cannot be stored with the same typed error naming the culprit, and writes nothing', async () => {
      const circular: Record<string, unknown> = { a: 1 };
      circular.self = circular;
      const cases: Array<[unknown, string]> = [
        [{ n: 10n }, 'task.metadata.n is the BigInt 10n, which cannot be stored'],
        [circular, 'task.metadata.self is a circular reference to an enclosing value'],
        [{ run: () => 1 }, 'task.metadata.run is a function, which cannot be stored'],
        [{ list: [1, Number.NaN] }, 'task.metadata.list[1] is NaN, which cannot be stored'],
      ];
      for (const [metadata, message] of cases) {
        await expect(async () =>
          a.stateMachine.upsertTask({ id: 'T1', metadata: metadata as Record<string, unknown> }),
        ).rejects.toThrow(InvalidInputError);
        await expect(async () =>
          a.stateMachine.upsertTask({ id: 'T1', metadata: metadata as Record<string, unknown> }),
        ).rejects.toThrow(message);
        await expect(async () =>
          a.stateMachine.addContextEntry({
            entryType: 'decision',
            topic: 't',
            content: 'c',
            metadata: metadata as Record<string, unknown>,
          }),
        ).rejects.toThrow(message.replace('task.metadata', 'entry.metadata'));
      }
      expect(await a.stateMachine.listTasks()).toEqual([]);
      expect(await a.stateMachine.listContextEntries()).toEqual([]);
    });

    it('a clock whose now() is NaN or a string is a ConfigurationError naming the clock; nothing is written', async () => {
      for (const reading of [Number.NaN, 'soon' as unknown as number]) {
        a.clock.set(reading);
        await expect(async () => a.stateMachine.upsertTask({ id: 'T1' })).rejects.toThrow(
          /^options\.clock\.now\(\) must return finite epoch milliseconds, got /,
        );
      }
      a.clock.set(T0);
      expect(await a.stateMachine.listTasks()).toEqual([]);
    });

    it('returns frozen copies: mutating inputs or results never changes what is stored', async () => {
      const metadata: Record<string, unknown> = { k: 'v' };
      const task = await a.stateMachine.upsertTask({ id: 'T1', metadata });
      metadata.k = 'changed';
      expect(Object.isFrozen(task)).toBe(true);
      expect(Object.isFrozen(task.metadata)).toBe(true);
      expect(() => {
        (task as { status: string }).status = 'done';
      }).toThrow(TypeError);
      expect((await a.stateMachine.getTask('T1'))?.metadata).toEqual({ k: 'v' });
      const events = await a.stateMachine.listTaskEvents('T1');
      events.pop();
      expect(await a.stateMachine.listTaskEvents('T1')).toHaveLength(1);
      const tasks = await a.stateMachine.listTasks();
      tasks.pop();
      expect(await a.stateMachine.listTasks()).toHaveLength(1);
    });
  });

  describe('StateMachine: context entries', () => {
    it('addContextEntry assigns distinct ids and the clock time, with defaults', async () => {
      const first = await a.stateMachine.addContextEntry({
        entryType: 'learning',
        topic: 'notes',
        content: 'one',
      });
      a.clock.advance(10);
      const second = await a.stateMachine.addContextEntry({
        entryType: 'decision',
        topic: 'loop_recovery',
        content: 'two',
        relatedTasks: ['T1', 'T2'],
        confidence: 0.5,
        metadata: { evidence: [{ at: 1 }] },
      });
      expect(first).toEqual({
        id: first.id,
        timestamp: T0,
        entryType: 'learning',
        topic: 'notes',
        content: 'one',
        relatedTasks: [],
        confidence: 1,
        metadata: {},
      });
      expect(typeof first.id).toBe('string');
      expect(second.id).not.toBe(first.id);
      expect(second).toMatchObject({ timestamp: T0 + 10, relatedTasks: ['T1', 'T2'], confidence: 0.5 });
      expect(second.metadata).toEqual({ evidence: [{ at: 1 }] });
      expect(Object.isFrozen(second)).toBe(true);
      expect(Object.isFrozen(second.relatedTasks)).toBe(true);
      expect(Object.isFrozen(second.metadata)).toBe(true);
    });

    it('addContextEntry rejects bad input and writes nothing', async () => {
      const bad = [
        { entryType: 'opinion', topic: 't', content: 'c' },
        { entryType: 'decision', topic: '', content: 'c' },
        { entryType: 'decision', topic: 't', content: 42 },
        { entryType: 'decision', topic: 't', content: 'c', confidence: 2 },
        { entryType: 'decision', topic: 't', content: 'c', relatedTasks: [1] },
        { entryType: 'decision', topic: 't', content: 'c', metadata: [] },
      ];
      for (const input of bad) {
        await expect(async () => a.stateMachine.addContextEntry(input as never)).rejects.toThrow(
          InvalidInputError,
        );
      }
      expect(await a.stateMachine.listContextEntries()).toEqual([]);
    });

    async function seedEntries(): Promise<void> {
      const add = (topic: string, relatedTasks: string[], step = 1000) => {
        a.clock.advance(step);
        return a.stateMachine.addContextEntry({ entryType: 'decision', topic, content: topic, relatedTasks });
      };
      await add('notes', ['T1']); // T0+1000
      await add('loop_recovery', ['T1']); // T0+2000
      await add('unblock_authority', ['T2']); // T0+3000
      await add('notes', ['T2', 'T1']); // T0+4000
      await add('loop_escalation', ['T1', 'T1']); // T0+5000
      await add('other', []); // T0+6000
    }
    const contents = async (
      query: Parameters<AsyncAdapterUnderTest['stateMachine']['listContextEntries']>[0],
    ) => (await a.stateMachine.listContextEntries(query)).map((e) => `${e.topic}@${e.timestamp - T0}`);

    it('lists newest first, with topic, task, since and limit filters', async () => {
      await seedEntries();
      expect(await contents({})).toEqual([
        'other@6000',
        'loop_escalation@5000',
        'notes@4000',
        'unblock_authority@3000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(await contents({ topics: RECOVERY_TOPICS })).toEqual([
        'loop_escalation@5000',
        'unblock_authority@3000',
        'loop_recovery@2000',
      ]);
      expect(await contents({ topics: ['notes'] })).toEqual(['notes@4000', 'notes@1000']);
      expect(await contents({ topics: ['notes', 'other'] })).toEqual([
        'other@6000',
        'notes@4000',
        'notes@1000',
      ]);
      expect(await contents({ topics: ['notes', 'loop_recovery'] })).toEqual([
        'notes@4000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(await contents({ topics: ['absent'] })).toEqual([]);
      expect(await contents({ topics: [] })).toEqual([]);
      expect(await contents({ taskId: 'T1' })).toEqual([
        'loop_escalation@5000',
        'notes@4000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(await contents({ taskId: 'T2' })).toEqual(['notes@4000', 'unblock_authority@3000']);
      expect(await contents({ taskId: 'T3' })).toEqual([]);
      expect(await contents({ taskId: 'T1', topics: RECOVERY_TOPICS, limit: 1 })).toEqual([
        'loop_escalation@5000',
      ]);
      expect(await contents({ taskId: 'T1', topics: ['notes'] })).toEqual(['notes@4000', 'notes@1000']);
      expect(await contents({ since: T0 + 4000 })).toEqual([
        'other@6000',
        'loop_escalation@5000',
        'notes@4000',
      ]);
      expect(await contents({ since: T0 + 4000, taskId: 'T1' })).toEqual([
        'loop_escalation@5000',
        'notes@4000',
      ]);
      expect(await contents({ since: T0 + 2000, topics: RECOVERY_TOPICS, limit: 2 })).toEqual([
        'loop_escalation@5000',
        'unblock_authority@3000',
      ]);
      expect(await contents({ limit: 2 })).toEqual(['other@6000', 'loop_escalation@5000']);
      expect(await contents({ limit: 0 })).toEqual([]);
    });

    it('breaks timestamp ties by insertion order (newest inserted first)', async () => {
      const ids: string[] = [];
      for (const topic of ['a', 'b', 'c']) {
        const entry = await a.stateMachine.addContextEntry({
          entryType: 'learning',
          topic,
          content: topic,
          relatedTasks: ['T'],
        });
        ids.push(entry.id);
      }
      expect((await a.stateMachine.listContextEntries()).map((e) => e.id)).toEqual([...ids].reverse());
      expect((await a.stateMachine.listContextEntries({ taskId: 'T' })).map((e) => e.id)).toEqual(
        [...ids].reverse(),
      );
    });

    it('returns entries that callers cannot use to change storage', async () => {
      await a.stateMachine.addContextEntry({
        entryType: 'decision',
        topic: 't',
        content: 'c',
        relatedTasks: ['T1'],
      });
      const entry = (await a.stateMachine.listContextEntries())[0] as ContextEntry;
      expect(Object.isFrozen(entry)).toBe(true);
      expect(() => {
        (entry.relatedTasks as string[]).push('T2');
      }).toThrow(TypeError);
      expect(await a.stateMachine.listContextEntries({ taskId: 'T2' })).toEqual([]);
    });
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

  describe('SharedLoopDetector end to end', () => {
    const detectorOn = (options: SharedLoopDetectorOptions = {}) =>
      new SharedLoopDetector(a.storage, { clock: a.clock, ...options });

    it('seed Test 1: completed task revisit → force_next', async () => {
      const loopDetector = detectorOn();
      await a.stateMachine.upsertTask({ id: 'T3.4.2', title: 'dashboard' });
      for (let i = 0; i < 4; i++) {
        a.clock.advance(1000);
        await loopDetector.recordAttempt('T3.4.2', 'done', [], ['Implemented dashboard.tsx'], `session_${i}`);
      }
      const result = await loopDetector.detectLoop('T3.4.2');
      expect(result).toMatchObject({
        isLooping: true,
        loopType: 'completed_task_revisit',
        recommendation: 'force_next',
        attemptCount: 4,
      });
      const outcome = await loopDetector.applyRecovery(result);
      expect(outcome.applied).toBe(true);
      if (!outcome.applied) return;
      expect(outcome.entry.topic).toBe('loop_recovery');
      expect(outcome.entry.content).toContain('DO NOT revisit this task');
      expect(outcome.task?.status).toBe('done');
      expect(await a.attempts.listSince('T3.4.2', 0)).toEqual([]);
      expect((await loopDetector.detectLoop('T3.4.2')).isLooping).toBe(false);
    });

    it('seed Test 2: blocked task spin → unblock_authority, then escalate when it persists', async () => {
      const loopDetector = detectorOn();
      await a.stateMachine.upsertTask({ id: 'T3.4.3' });
      const blockers = ['critic:design_system unavailable'];
      for (let i = 0; i < 3; i++)
        await loopDetector.recordAttempt('T3.4.3', 'blocked', blockers, [], `session_${i}`);
      const result = await loopDetector.detectLoop('T3.4.3');
      expect(result).toMatchObject({
        isLooping: true,
        loopType: 'blocked_task_spin',
        recommendation: 'unblock_authority',
        blockers,
      });
      const granted = await loopDetector.applyRecovery(result);
      expect(granted.applied && granted.entry.topic).toBe('unblock_authority');
      expect(granted.applied && granted.entry.metadata.scope).toEqual({ taskId: 'T3.4.3', blockers });

      a.clock.advance(60_000);
      for (let i = 3; i < 6; i++)
        await loopDetector.recordAttempt('T3.4.3', 'blocked', blockers, [], `session_${i}`);
      const again = await loopDetector.detectLoop('T3.4.3');
      expect(again.recommendation).toBe('escalate');
      const escalated = await loopDetector.applyRecovery(again);
      expect(escalated.applied && escalated.entry.topic).toBe('loop_escalation');
      expect(await a.stateMachine.getTask('T3.4.3')).toMatchObject({ status: 'blocked' });
      expect(
        (await a.stateMachine.listContextEntries({ topics: RECOVERY_TOPICS })).map((e) => [
          e.topic,
          e.timestamp - T0,
        ]),
      ).toEqual([
        ['loop_escalation', 60_000],
        ['unblock_authority', 0],
      ]);
    });

    it('seed Test 3: no progress repeat → force_next after 5 attempts', async () => {
      const loopDetector = detectorOn();
      const work = ['Read file A', 'Parse config'];
      for (let i = 0; i < 5; i++)
        await loopDetector.recordAttempt('T7.1.2', 'in_progress', [], work, `session_${i}`);
      const outcome = await loopDetector.recoverIfLooping('T7.1.2');
      expect(outcome).toMatchObject({ applied: true, action: 'force_next', loopType: 'no_progress_repeat' });
      expect(outcome.applied && outcome.task).toBeNull();
      const [entry] = await a.stateMachine.listContextEntries({ taskId: 'T7.1.2' });
      expect(entry?.metadata).toMatchObject({
        loopType: 'no_progress_repeat',
        attemptCount: 5,
        taskKnown: false,
      });
      expect(entry?.metadata.evidence).toHaveLength(5);
    });

    it('attempts recorded by any detector count for all; a recovery is applied once', async () => {
      const workers = [detectorOn(), detectorOn(), detectorOn()];
      await a.stateMachine.upsertTask({ id: 'T7' });
      for (const [i, worker] of workers.entries()) await worker.recordAttempt('T7', 'done', [], [], `w${i}`);
      const results = await Promise.all(workers.map((w) => w.detectLoop('T7')));
      expect(results.every((r) => r.isLooping && r.attemptCount === 3)).toBe(true);
      const outcomes = await Promise.all(workers.map((w, i) => w.applyRecovery(results[i] as never)));
      expect(outcomes.filter((o) => o.applied)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.applied).map((o) => !o.applied && o.reason)).toEqual([
        'The loop no longer holds in storage (already recovered?).',
        'The loop no longer holds in storage (already recovered?).',
      ]);
      expect(await a.stateMachine.listContextEntries({ topics: RECOVERY_TOPICS })).toHaveLength(1);
    });

    it('a failed recovery leaves the task, the entries and the attempts as they were', async () => {
      const detector = detectorOn();
      await a.stateMachine.upsertTask({ id: 'T1' });
      for (let i = 0; i < 3; i++) await detector.recordAttempt('T1', 'done', [], ['same']);
      const before = await a.attempts.listSince('T1', 0);
      const failing = new SharedLoopDetector(
        {
          ...a.storage,
          transaction: (fn, options) =>
            a.storage.transaction(
              (tx) =>
                fn({
                  attempts: tx.attempts,
                  stateMachine: {
                    ...tx.stateMachine,
                    getTask: (id) => tx.stateMachine.getTask(id),
                    transition: (id, s, r) => tx.stateMachine.transition(id, s, r),
                    listContextEntries: (q) => tx.stateMachine.listContextEntries(q),
                    addContextEntry: async () => {
                      throw new StorageError('storage_error', 'disk full');
                    },
                  },
                }),
              options,
            ),
        },
        { clock: a.clock },
      );
      await expect(failing.recoverIfLooping('T1')).rejects.toThrow('disk full');
      expect((await a.stateMachine.getTask('T1'))?.status).toBe('pending');
      expect(await a.attempts.listSince('T1', 0)).toEqual(before);
      expect(await a.stateMachine.listContextEntries()).toEqual([]);
      expect(await detector.recoverIfLooping('T1')).toMatchObject({ applied: true, action: 'force_next' });
    });

    it('recordAttemptWithTransition stores the attempt and the transition together', async () => {
      const detector = detectorOn();
      await a.stateMachine.upsertTask({ id: 'T1' });
      const { task } = await detector.recordAttemptWithTransition({
        taskId: 'T1',
        status: 'blocked',
        blockers: ['no token'],
        completedWork: [],
        reason: 'no token',
      });
      expect(task).toMatchObject({ status: 'blocked', blockedReason: 'no token' });
      expect(await detector.getStatus()).toEqual({ T1: { attemptCount: 1, lastAttempt: T0 } });
      await expect(
        detector.recordAttemptWithTransition({
          taskId: 'T1',
          status: 'done',
          blockers: [],
          completedWork: [],
          reason: '',
        }),
      ).rejects.toThrow(/input.reason/);
      await expect(detector.recordAttempt('T1', 'finished', [], [])).rejects.toThrow(/status/);
      expect(await a.attempts.listSince('T1', 0)).toHaveLength(1);
    });

    it('attempts outside the window do not count; prune and clearTask delete stored attempts', async () => {
      const detector = detectorOn({ attemptWindow: 60_000 });
      for (let i = 0; i < 3; i++) await detector.recordAttempt('T1', 'done', [], [], `s${i}`);
      await detector.recordAttempt('T2', 'done', [], [], 's');
      a.clock.advance(60_001);
      expect(await detector.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 0 });
      expect(await detector.getStatus()).toEqual({});
      expect(await detector.prune()).toBe(4);
      await detector.recordAttempt('T3', 'done', [], [], 's');
      expect(await detector.clearTask('T3')).toBe(1);
    });
  });
});
