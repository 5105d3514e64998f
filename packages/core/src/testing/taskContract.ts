import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, StorageError } from '../kernel/errors.js';
import type { TaskStatus } from '../model/task.js';
import { type ContractSubject, T0 } from './contractSubject.js';

/**
 * The contract of a state machine's tasks (`upsertTask`, `getTask`, `listTasks`, `transition`, `listTaskEvents`).
 * @param create - opens a fresh adapter under test (empty storage, manual clock at {@link T0}) for each test.
 */
export function taskContract(create: () => Promise<ContractSubject>): void {
  let a: ContractSubject;
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
}
