import {
  type Attempt,
  ConfigurationError,
  type ContextEntry,
  InvalidInputError,
  LoopDetector,
  type LoopDetectorOptions,
  RECOVERY_TOPICS,
  StorageError,
  type TaskStatus,
} from '@loopguard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTERS, type AdapterUnderTest, T0 } from './adapters.js';

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

describe.each(ADAPTERS)('storage contract: $name', ({ create }) => {
  let a: AdapterUnderTest;
  beforeEach(() => {
    a = create();
  });
  afterEach(() => {
    a.close();
  });

  describe('StateMachine: tasks', () => {
    it('upsertTask creates a task with defaults and a "created" event', () => {
      const task = a.stateMachine.upsertTask({ id: 'T1' });
      expect(task).toEqual({
        id: 'T1',
        title: '',
        status: 'pending',
        blockedReason: null,
        metadata: {},
        createdAt: T0,
        updatedAt: T0,
      });
      expect(a.stateMachine.getTask('T1')).toEqual(task);
      expect(a.stateMachine.listTaskEvents('T1')).toEqual([
        { taskId: 'T1', fromStatus: null, toStatus: 'pending', reason: 'created', timestamp: T0 },
      ]);
    });

    it('upsertTask takes title, status and metadata when creating', () => {
      const task = a.stateMachine.upsertTask({
        id: 'T2',
        title: 'Build it',
        status: 'in_progress',
        metadata: { owner: 'ada', nested: { n: 1, list: [1, 'two', null] } },
      });
      expect(task.title).toBe('Build it');
      expect(task.status).toBe('in_progress');
      expect(task.metadata).toEqual({ owner: 'ada', nested: { n: 1, list: [1, 'two', null] } });
      expect(a.stateMachine.listTaskEvents('T2')[0]?.toStatus).toBe('in_progress');
    });

    it('upsertTask on an existing task replaces title and metadata, keeps status and createdAt, adds no event', () => {
      a.stateMachine.upsertTask({ id: 'T1', title: 'old', metadata: { v: 1 } });
      a.stateMachine.transition('T1', 'in_progress', 'picked');
      a.clock.advance(5000);
      const task = a.stateMachine.upsertTask({ id: 'T1', title: 'new', status: 'done', metadata: { v: 2 } });
      expect(task).toMatchObject({ title: 'new', status: 'in_progress', metadata: { v: 2 } });
      expect(task.createdAt).toBe(T0);
      expect(task.updatedAt).toBe(T0 + 5000);
      expect(a.stateMachine.listTaskEvents('T1')).toHaveLength(2);
      const kept = a.stateMachine.upsertTask({ id: 'T1' });
      expect(kept).toMatchObject({ title: 'new', metadata: { v: 2 } });
    });

    it('getTask returns undefined for an unknown id', () => {
      expect(a.stateMachine.getTask('nope')).toBeUndefined();
    });

    it('listTasks returns tasks in creation order, optionally filtered by status', () => {
      for (const id of ['c', 'a', 'b']) a.stateMachine.upsertTask({ id });
      a.stateMachine.upsertTask({ id: 'a', title: 'updated later' });
      a.stateMachine.transition('b', 'blocked', 'waiting');
      a.stateMachine.transition('c', 'done', 'finished');
      expect(a.stateMachine.listTasks().map((t) => t.id)).toEqual(['c', 'a', 'b']);
      expect(a.stateMachine.listTasks({ statuses: ['blocked', 'done'] }).map((t) => t.id)).toEqual([
        'c',
        'b',
      ]);
      expect(a.stateMachine.listTasks({ statuses: ['pending'] }).map((t) => t.id)).toEqual(['a']);
      expect(a.stateMachine.listTasks({ statuses: [] })).toEqual([]);
    });

    it('transition records from/to/reason/time; blocked sets blockedReason, any other status clears it', () => {
      a.stateMachine.upsertTask({ id: 'T1' });
      a.clock.advance(1);
      const blocked = a.stateMachine.transition('T1', 'blocked', 'missing auth token');
      expect(blocked).toMatchObject({
        status: 'blocked',
        blockedReason: 'missing auth token',
        updatedAt: T0 + 1,
      });
      a.clock.advance(1);
      const resumed = a.stateMachine.transition('T1', 'in_progress', 'token provided');
      expect(resumed).toMatchObject({ status: 'in_progress', blockedReason: null, updatedAt: T0 + 2 });
      expect(a.stateMachine.getTask('T1')).toEqual(resumed);
      expect(a.stateMachine.listTaskEvents('T1')).toEqual([
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
      expect(a.stateMachine.listTaskEvents('unknown')).toEqual([]);
    });

    it('transition of an unknown task throws StorageError task_not_found', () => {
      const error = (() => {
        try {
          a.stateMachine.transition('ghost', 'done', 'why');
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('task_not_found');
      expect(a.stateMachine.listTaskEvents('ghost')).toEqual([]);
    });

    it('rejects bad input before writing anything', () => {
      a.stateMachine.upsertTask({ id: 'T1' });
      expect(() => a.stateMachine.upsertTask({ id: '' })).toThrow(InvalidInputError);
      expect(() => a.stateMachine.upsertTask({ id: 'T2', status: 'finished' as TaskStatus })).toThrow(
        /task.status/,
      );
      expect(() => a.stateMachine.transition('T1', 'finished' as TaskStatus, 'r')).toThrow(InvalidInputError);
      expect(() => a.stateMachine.transition('T1', 'done', '')).toThrow(/reason/);
      expect(a.stateMachine.listTasks().map((t) => t.id)).toEqual(['T1']);
      expect(a.stateMachine.getTask('T1')?.status).toBe('pending');
      expect(a.stateMachine.listTaskEvents('T1')).toHaveLength(1);
    });

    it('rejects metadata that cannot be stored with the same typed error naming the culprit, and writes nothing', () => {
      const circular: Record<string, unknown> = { a: 1 };
      circular.self = circular;
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      const cases: Array<[unknown, string]> = [
        [{ n: 10n }, 'task.metadata.n is the BigInt 10n, which cannot be stored'],
        [circular, 'task.metadata.self is a circular reference to an enclosing value'],
        [{ run: () => 1 }, 'task.metadata.run is a function, which cannot be stored'],
        [{ list: [1, Number.NaN] }, 'task.metadata.list[1] is NaN, which cannot be stored'],
        [{ at: new Date(0) }, 'task.metadata.at is an instance of Date, not a plain object'],
        [{ inner: proxy }, 'task.metadata.inner is a revoked Proxy'],
      ];
      for (const [metadata, message] of cases) {
        const call = () =>
          a.stateMachine.upsertTask({ id: 'T1', metadata: metadata as Record<string, unknown> });
        expect(call).toThrow(InvalidInputError);
        expect(call).toThrow(message);
        expect(() =>
          a.stateMachine.addContextEntry({
            entryType: 'decision',
            topic: 't',
            content: 'c',
            metadata: metadata as Record<string, unknown>,
          }),
        ).toThrow(message.replace('task.metadata', 'entry.metadata'));
      }
      expect(a.stateMachine.listTasks()).toEqual([]);
      expect(a.stateMachine.listContextEntries()).toEqual([]);
      // undefined properties are left out, as JSON does, on every adapter
      const task = a.stateMachine.upsertTask({ id: 'T1', metadata: { kept: 1, dropped: undefined } });
      expect(task.metadata).toEqual({ kept: 1 });
      expect(Object.keys(a.stateMachine.getTask('T1')?.metadata ?? {})).toEqual(['kept']);
    });

    it('a clock whose now() is not a finite number is a ConfigurationError naming the clock; nothing is written', async () => {
      a.stateMachine.upsertTask({ id: 'T1' });
      const detector = new LoopDetector(a.storage, { clock: a.clock });
      for (const reading of [Number.NaN, 'soon' as unknown as number]) {
        a.clock.set(reading);
        const shown = typeof reading === 'string' ? '"soon"' : 'number NaN';
        const message = `options.clock.now() must return finite epoch milliseconds, got ${shown}`;
        expect(() => a.stateMachine.upsertTask({ id: 'T2' })).toThrow(ConfigurationError);
        expect(() => a.stateMachine.upsertTask({ id: 'T2' })).toThrow(message);
        expect(() => a.stateMachine.transition('T1', 'done', 'r')).toThrow(message);
        expect(() =>
          a.stateMachine.addContextEntry({ entryType: 'decision', topic: 't', content: 'c' }),
        ).toThrow(message);
        expect(() => detector.recordAttempt('T1', 'in_progress', [], ['w'], 's')).toThrow(message);
      }
      a.clock.set(T0);
      expect(a.stateMachine.listTasks().map((t) => t.id)).toEqual(['T1']);
      expect(a.stateMachine.getTask('T1')?.status).toBe('pending');
      expect(a.stateMachine.listContextEntries()).toEqual([]);
      expect(a.attemptStore.listSince('T1', 0)).toEqual([]);
    });

    it('copies related tasks before checking them, so a value cannot change after it passed', () => {
      let reads = 0;
      const shifty = new Proxy(['T1'], {
        get(target, key, receiver) {
          if (key === '0') return reads++ === 0 ? 'T1' : 42;
          return Reflect.get(target, key, receiver);
        },
      });
      const entry = a.stateMachine.addContextEntry({
        entryType: 'decision',
        topic: 't',
        content: 'c',
        relatedTasks: shifty,
      });
      expect(entry.relatedTasks).toEqual(['T1']);
      expect(a.stateMachine.listContextEntries({ taskId: 'T1' })).toHaveLength(1);
    });

    it('returns frozen copies: mutating inputs or results never changes what is stored', () => {
      const metadata: Record<string, unknown> = { k: 'v' };
      const task = a.stateMachine.upsertTask({ id: 'T1', metadata });
      metadata.k = 'changed';
      expect(Object.isFrozen(task)).toBe(true);
      expect(Object.isFrozen(task.metadata)).toBe(true);
      expect(() => {
        (task as { status: string }).status = 'done';
      }).toThrow(TypeError);
      expect(a.stateMachine.getTask('T1')?.metadata).toEqual({ k: 'v' });
      const events = a.stateMachine.listTaskEvents('T1');
      events.pop();
      expect(a.stateMachine.listTaskEvents('T1')).toHaveLength(1);
      const tasks = a.stateMachine.listTasks();
      tasks.pop();
      expect(a.stateMachine.listTasks()).toHaveLength(1);
    });
  });

  describe('StateMachine: context entries', () => {
    it('addContextEntry assigns distinct ids and the clock time, with defaults', () => {
      const first = a.stateMachine.addContextEntry({ entryType: 'learning', topic: 'notes', content: 'one' });
      a.clock.advance(10);
      const second = a.stateMachine.addContextEntry({
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

    it('addContextEntry rejects bad input and writes nothing', () => {
      const bad = [
        { entryType: 'opinion', topic: 't', content: 'c' },
        { entryType: 'decision', topic: '', content: 'c' },
        { entryType: 'decision', topic: 't', content: 42 },
        { entryType: 'decision', topic: 't', content: 'c', confidence: 2 },
        { entryType: 'decision', topic: 't', content: 'c', relatedTasks: [1] },
        { entryType: 'decision', topic: 't', content: 'c', metadata: [] },
      ];
      for (const input of bad) {
        expect(() => a.stateMachine.addContextEntry(input as never)).toThrow(InvalidInputError);
      }
      expect(a.stateMachine.listContextEntries()).toEqual([]);
    });

    function seedEntries(): void {
      const add = (topic: string, relatedTasks: string[], step = 1000) => {
        a.clock.advance(step);
        return a.stateMachine.addContextEntry({ entryType: 'decision', topic, content: topic, relatedTasks });
      };
      add('notes', ['T1']); // T0+1000
      add('loop_recovery', ['T1']); // T0+2000
      add('unblock_authority', ['T2']); // T0+3000
      add('notes', ['T2', 'T1']); // T0+4000
      add('loop_escalation', ['T1', 'T1']); // T0+5000
      add('other', []); // T0+6000
    }
    const contents = (query: Parameters<AdapterUnderTest['stateMachine']['listContextEntries']>[0]) =>
      a.stateMachine.listContextEntries(query).map((e) => `${e.topic}@${e.timestamp - T0}`);

    it('lists newest first, with topic, task, since and limit filters', () => {
      seedEntries();
      expect(contents({})).toEqual([
        'other@6000',
        'loop_escalation@5000',
        'notes@4000',
        'unblock_authority@3000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(contents({ topics: RECOVERY_TOPICS })).toEqual([
        'loop_escalation@5000',
        'unblock_authority@3000',
        'loop_recovery@2000',
      ]);
      expect(contents({ topics: ['notes'] })).toEqual(['notes@4000', 'notes@1000']);
      expect(contents({ topics: ['notes', 'other'] })).toEqual(['other@6000', 'notes@4000', 'notes@1000']);
      expect(contents({ topics: ['notes', 'loop_recovery'] })).toEqual([
        'notes@4000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(contents({ topics: ['absent'] })).toEqual([]);
      expect(contents({ topics: [] })).toEqual([]);
      expect(contents({ taskId: 'T1' })).toEqual([
        'loop_escalation@5000',
        'notes@4000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(contents({ taskId: 'T2' })).toEqual(['notes@4000', 'unblock_authority@3000']);
      expect(contents({ taskId: 'T3' })).toEqual([]);
      expect(contents({ taskId: 'T1', topics: RECOVERY_TOPICS, limit: 1 })).toEqual(['loop_escalation@5000']);
      expect(contents({ taskId: 'T1', topics: ['notes'] })).toEqual(['notes@4000', 'notes@1000']);
      expect(contents({ since: T0 + 4000 })).toEqual(['other@6000', 'loop_escalation@5000', 'notes@4000']);
      expect(contents({ since: T0 + 4000, taskId: 'T1' })).toEqual(['loop_escalation@5000', 'notes@4000']);
      expect(contents({ since: T0 + 2000, topics: RECOVERY_TOPICS, limit: 2 })).toEqual([
        'loop_escalation@5000',
        'unblock_authority@3000',
      ]);
      expect(contents({ limit: 2 })).toEqual(['other@6000', 'loop_escalation@5000']);
      expect(contents({ limit: 0 })).toEqual([]);
    });

    it('breaks timestamp ties by insertion order (newest inserted first)', () => {
      const ids = ['a', 'b', 'c'].map(
        (topic) =>
          a.stateMachine.addContextEntry({
            entryType: 'learning',
            topic,
            content: topic,
            relatedTasks: ['T'],
          }).id,
      );
      expect(a.stateMachine.listContextEntries().map((e) => e.id)).toEqual([...ids].reverse());
      expect(a.stateMachine.listContextEntries({ taskId: 'T' }).map((e) => e.id)).toEqual([...ids].reverse());
    });

    it('returns entries that callers cannot use to change storage', () => {
      a.stateMachine.addContextEntry({
        entryType: 'decision',
        topic: 't',
        content: 'c',
        relatedTasks: ['T1'],
      });
      const entry = a.stateMachine.listContextEntries()[0] as ContextEntry;
      expect(Object.isFrozen(entry)).toBe(true);
      expect(() => {
        (entry.relatedTasks as string[]).push('T2');
      }).toThrow(TypeError);
      expect(a.stateMachine.listContextEntries({ taskId: 'T2' })).toEqual([]);
    });
  });

  describe('StateMachine: transaction', () => {
    it('returns the value of fn, and nests', () => {
      const value = a.stateMachine.transaction(() => {
        a.stateMachine.upsertTask({ id: 'T1' });
        return a.stateMachine.transaction(() => {
          a.attemptStore.append(attempt('T1', T0));
          return 42;
        });
      });
      expect(value).toBe(42);
      expect(a.stateMachine.getTask('T1')).toBeDefined();
      expect(a.attemptStore.listSince('T1', 0)).toHaveLength(1);
    });

    it('propagates the error thrown by fn unchanged', () => {
      const boom = new Error('boom');
      expect(() =>
        a.stateMachine.transaction(() => {
          throw boom;
        }),
      ).toThrow(boom);
    });
  });

  describe('Storage: transaction rolls back', () => {
    /** Everything the ports hold about the tasks used below, for before/after comparisons. */
    const snapshot = () => ({
      tasks: a.stateMachine.listTasks(),
      events: ['T1', 'T2'].map((id) => a.stateMachine.listTaskEvents(id)),
      entries: a.stateMachine.listContextEntries(),
      attempts: ['T1', 'T2'].map((id) => a.storage.attempts.listSince(id, 0)),
      summary: [...a.storage.attempts.summarize(0)].sort(([x], [y]) => x.localeCompare(y)),
    });
    const seed = () => {
      a.stateMachine.upsertTask({ id: 'T1', title: 'one' });
      a.stateMachine.addContextEntry({
        entryType: 'learning',
        topic: 'x',
        content: 'c',
        relatedTasks: ['T1'],
      });
      a.storage.attempts.append(attempt('T1', T0 - 10_000));
      a.storage.attempts.append(attempt('T1', T0));
      a.storage.attempts.append(attempt('T2', T0));
    };

    it('hands fn the ports and commits what fn wrote', () => {
      const value = a.storage.transaction((tx) => {
        tx.stateMachine.upsertTask({ id: 'T1' });
        tx.attempts.append(attempt('T1', T0));
        return 'ok';
      });
      expect(value).toBe('ok');
      expect(a.stateMachine.getTask('T1')).toBeDefined();
      expect(a.storage.attempts.listSince('T1', 0)).toHaveLength(1);
    });

    it('reverts every kind of write of both ports when fn throws, and rethrows the error unchanged', () => {
      seed();
      const before = snapshot();
      const boom = new Error('boom');
      expect(() =>
        a.storage.transaction((tx) => {
          tx.stateMachine.upsertTask({ id: 'T2', title: 'two' });
          tx.stateMachine.upsertTask({ id: 'T1', title: 'renamed', metadata: { v: 2 } });
          tx.stateMachine.transition('T1', 'blocked', 'stuck');
          tx.stateMachine.addContextEntry({
            entryType: 'decision',
            topic: 'y',
            content: 'd',
            relatedTasks: ['T1', 'T2'],
          });
          tx.attempts.append(attempt('T1', T0 + 1));
          tx.attempts.appendMany([attempt('T2', T0 + 1), attempt('T3', T0 + 1)]);
          expect(tx.attempts.prune(T0 - 1, 10)).toBe(1);
          expect(tx.attempts.clear('T2')).toBe(2);
          tx.attempts.append(attempt('T2', T0 + 2));
          throw boom;
        }),
      ).toThrow(boom);
      expect(snapshot()).toEqual(before);
      expect(a.storage.attempts.listSince('T3', 0)).toEqual([]);
      // entry ids stay distinct after a rollback
      const next = a.stateMachine.addContextEntry({ entryType: 'learning', topic: 'z', content: 'e' });
      expect(before.entries.map((e) => e.id)).not.toContain(next.id);
    });

    it('a nested transaction that throws reverts only its own writes', () => {
      a.storage.transaction((tx) => {
        tx.stateMachine.upsertTask({ id: 'T1' });
        expect(() =>
          a.storage.transaction((inner) => {
            inner.attempts.append(attempt('T1', T0));
            inner.stateMachine.transition('T1', 'done', 'inner');
            throw new Error('inner');
          }),
        ).toThrow('inner');
        tx.attempts.append(attempt('T1', T0 + 1));
      });
      expect(a.stateMachine.getTask('T1')?.status).toBe('pending');
      expect(a.storage.attempts.listSince('T1', 0).map((x) => x.timestamp)).toEqual([T0 + 1]);
    });

    it('a failed recovery leaves the task, the entries and the attempts as they were', async () => {
      const detector = new LoopDetector(a.storage, { clock: a.clock });
      a.stateMachine.upsertTask({ id: 'T1' });
      for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'done', [], ['same']);
      const before = snapshot();
      const original = a.stateMachine.addContextEntry.bind(a.stateMachine);
      a.stateMachine.addContextEntry = () => {
        throw new StorageError('storage_error', 'disk full');
      };
      try {
        expect(() => detector.recoverIfLooping('T1')).toThrow('disk full');
      } finally {
        a.stateMachine.addContextEntry = original;
      }
      expect(snapshot()).toEqual(before);
      const outcome = detector.recoverIfLooping('T1');
      expect(outcome).toMatchObject({ applied: true, action: 'force_next' });
      expect(a.stateMachine.getTask('T1')?.status).toBe('done');
    });

    it('recordAttemptWithTransition stores the attempt and the transition together, or neither', () => {
      const detector = new LoopDetector(a.storage, { clock: a.clock });
      a.stateMachine.upsertTask({ id: 'T1' });
      const { task } = detector.recordAttemptWithTransition({
        taskId: 'T1',
        status: 'blocked',
        blockers: ['no token'],
        completedWork: [],
        reason: 'no token',
      });
      expect(task).toMatchObject({ status: 'blocked', blockedReason: 'no token' });
      expect(a.storage.attempts.listSince('T1', 0)).toHaveLength(1);

      const before = snapshot();
      const original = a.storage.attempts.append.bind(a.storage.attempts);
      a.storage.attempts.append = () => {
        throw new StorageError('storage_error', 'disk full');
      };
      try {
        expect(() =>
          detector.recordAttemptWithTransition({
            taskId: 'T1',
            status: 'in_progress',
            blockers: [],
            completedWork: ['x'],
            reason: 'unblocked',
          }),
        ).toThrow('disk full');
      } finally {
        a.storage.attempts.append = original;
      }
      expect(snapshot()).toEqual(before);
      expect(detector.getStatus()).toEqual({ T1: { attemptCount: 1, lastAttempt: T0 } });
    });
  });

  describe('AttemptStore', () => {
    it('append and listSince: per task, oldest first, since inclusive', () => {
      a.attemptStore.append(
        attempt('T1', T0 + 1, { status: 'blocked', blockers: ['b1', 'b2'], sessionId: 's1' }),
      );
      a.attemptStore.append(attempt('T2', T0 + 2));
      a.attemptStore.append(attempt('T1', T0 + 3, { completedWork: ['w'] }));
      expect(a.attemptStore.listSince('T1', 0)).toEqual([
        attempt('T1', T0 + 1, { status: 'blocked', blockers: ['b1', 'b2'], sessionId: 's1' }),
        attempt('T1', T0 + 3, { completedWork: ['w'] }),
      ]);
      expect(a.attemptStore.listSince('T1', T0 + 3)).toEqual([
        attempt('T1', T0 + 3, { completedWork: ['w'] }),
      ]);
      expect(a.attemptStore.listSince('T1', T0 + 4)).toEqual([]);
      expect(a.attemptStore.listSince('unknown', 0)).toEqual([]);
    });

    it('rejects attempts over the size limits with a typed error and stores nothing', () => {
      const longId = 'T'.repeat(257);
      expect(() => a.attemptStore.append(attempt(longId, T0))).toThrow(
        'attempt.taskId is 257 characters long; a task id has at most 256',
      );
      const many = Array.from({ length: 102 }, (_, i) => `w${i}`);
      expect(() => a.attemptStore.append(attempt('T1', T0, { completedWork: many }))).toThrow(
        'attempt.completedWork has 102 items',
      );
      expect(() => a.attemptStore.append(attempt('T1', T0, { blockers: ['x'.repeat(5000)] }))).toThrow(
        InvalidInputError,
      );
      expect(a.attemptStore.listSince('T1', 0)).toEqual([]);
    });

    it('appendMany appends in order', () => {
      const batch = [1, 2, 3].map((i) => attempt(i % 2 ? 'odd' : 'even', T0 + i, { sessionId: `s${i}` }));
      a.attemptStore.appendMany(batch);
      a.attemptStore.appendMany([]);
      expect(a.attemptStore.listSince('odd', 0).map((x) => x.sessionId)).toEqual(['s1', 's3']);
      expect(a.attemptStore.listSince('even', 0).map((x) => x.sessionId)).toEqual(['s2']);
    });

    it('keeps the order of blockers and completed work, and duplicates', () => {
      const stored = attempt('T', T0, { blockers: ['z', 'a', 'z'], completedWork: ['2', '1'] });
      a.attemptStore.append(stored);
      const [back] = a.attemptStore.listSince('T', 0);
      expect(back?.blockers).toEqual(['z', 'a', 'z']);
      expect(back?.completedWork).toEqual(['2', '1']);
    });

    it('clear deletes one task and returns the count', () => {
      a.attemptStore.appendMany([attempt('T1', T0), attempt('T1', T0 + 1), attempt('T2', T0 + 2)]);
      expect(a.attemptStore.clear('T1')).toBe(2);
      expect(a.attemptStore.clear('T1')).toBe(0);
      expect(a.attemptStore.listSince('T1', 0)).toEqual([]);
      expect(a.attemptStore.listSince('T2', 0)).toHaveLength(1);
    });

    it('prune deletes at most limit attempts older than before, in bounded batches', () => {
      const batch: Attempt[] = [];
      for (let i = 0; i < 10; i++) batch.push(attempt(`T${i % 3}`, T0 + i));
      a.attemptStore.appendMany(batch);
      expect(a.attemptStore.prune(T0 + 7, 3)).toBe(3);
      expect(a.attemptStore.prune(T0 + 7, 3)).toBe(3);
      expect(a.attemptStore.prune(T0 + 7, 3)).toBe(1);
      expect(a.attemptStore.prune(T0 + 7, 3)).toBe(0);
      const left = ['T0', 'T1', 'T2']
        .flatMap((t) => a.attemptStore.listSince(t, 0))
        .map((x) => x.timestamp - T0);
      expect(left.sort((x, y) => x - y)).toEqual([7, 8, 9]);
    });

    it('summarize gives count and newest time per task since a time', () => {
      a.attemptStore.appendMany([
        attempt('T1', T0),
        attempt('T1', T0 + 5),
        attempt('T2', T0 + 1),
        attempt('T3', T0 - 9),
      ]);
      expect(a.attemptStore.summarize(T0)).toEqual(
        new Map([
          ['T1', { attemptCount: 2, lastAttempt: T0 + 5 }],
          ['T2', { attemptCount: 1, lastAttempt: T0 + 1 }],
        ]),
      );
      expect(a.attemptStore.summarize(T0 + 100)).toEqual(new Map());
    });

    it('summarizePage pages the same summary in task-id order, with the total and a cursor', () => {
      const ids = ['T05', 'T01', 'T04', 'T02', 'T03', 'T06', 'T07'];
      a.attemptStore.appendMany(ids.map((id, i) => attempt(id, T0 + i)));
      a.attemptStore.appendMany([attempt('T01', T0 + 10), attempt('T01', T0 - 50), attempt('T99', T0 - 50)]);
      const since = T0;
      const first = a.attemptStore.summarizePage(since, { limit: 3 });
      expect(first).toEqual({
        tasks: [
          ['T01', { attemptCount: 2, lastAttempt: T0 + 10 }],
          ['T02', { attemptCount: 1, lastAttempt: T0 + 3 }],
          ['T03', { attemptCount: 1, lastAttempt: T0 + 4 }],
        ],
        total: 7,
        nextCursor: 'T03',
      });
      const second = a.attemptStore.summarizePage(since, { limit: 3, cursor: 'T03' });
      expect(second.tasks.map(([id]) => id)).toEqual(['T04', 'T05', 'T06']);
      const last = a.attemptStore.summarizePage(since, { limit: 3, cursor: second.nextCursor ?? '' });
      expect(last).toEqual({
        tasks: [['T07', { attemptCount: 1, lastAttempt: T0 + 6 }]],
        total: 7,
        nextCursor: null,
      });
      // the pages together are summarize()
      const paged = [...first.tasks, ...second.tasks, ...last.tasks];
      expect(new Map(paged)).toEqual(a.attemptStore.summarize(since));
      expect(a.attemptStore.summarizePage(since, { limit: 7 }).nextCursor).toBeNull();
      expect(a.attemptStore.summarizePage(T0 + 100, { limit: 3 })).toEqual({
        tasks: [],
        total: 0,
        nextCursor: null,
      });
    });

    it('the summary follows clear and prune (expired attempts never count, pruned or not)', () => {
      a.attemptStore.appendMany([
        attempt('T1', T0 - 20),
        attempt('T1', T0 - 10),
        attempt('T1', T0 + 1),
        attempt('T2', T0 - 5),
        attempt('T3', T0 + 2),
      ]);
      const page = () => a.attemptStore.summarizePage(T0, { limit: 10 });
      expect(page()).toMatchObject({
        tasks: [
          ['T1', { attemptCount: 1 }],
          ['T3', { attemptCount: 1 }],
        ],
        total: 2,
      });
      expect(a.attemptStore.summarize(T0 - 15).get('T1')).toEqual({ attemptCount: 2, lastAttempt: T0 + 1 });
      expect(a.attemptStore.prune(T0, 2)).toBe(2);
      expect(a.attemptStore.summarize(T0 - 100)).toEqual(
        new Map([
          ['T1', { attemptCount: 1, lastAttempt: T0 + 1 }],
          ['T2', { attemptCount: 1, lastAttempt: T0 - 5 }],
          ['T3', { attemptCount: 1, lastAttempt: T0 + 2 }],
        ]),
      );
      a.attemptStore.clear('T1');
      expect(page()).toEqual({
        tasks: [['T3', { attemptCount: 1, lastAttempt: T0 + 2 }]],
        total: 1,
        nextCursor: null,
      });
      a.attemptStore.append(attempt('T1', T0 + 3));
      expect(page().total).toBe(2);
    });

    it('stores values containing quotes, semicolons and SQL verbatim', () => {
      const nasty = `T'; DROP TABLE attempts; --"\u0000 ✓`;
      const record = attempt(nasty, T0, {
        status: 'blocked',
        blockers: [`it's "blocked"; DELETE FROM tasks;`, '%_\\'],
        completedWork: ["Robert'); DROP TABLE students;--"],
        sessionId: `' OR 1=1 --`,
      });
      a.attemptStore.append(record);
      expect(a.attemptStore.listSince(nasty, 0)).toEqual([record]);
      expect(a.attemptStore.listSince('T', 0)).toEqual([]);
      const task = a.stateMachine.upsertTask({ id: nasty, title: `"; SELECT 1; '`, metadata: { q: "'" } });
      expect(a.stateMachine.getTask(nasty)).toEqual(task);
      const entry = a.stateMachine.addContextEntry({
        entryType: 'decision',
        topic: `x' OR '1'='1`,
        content: 'c',
        relatedTasks: [nasty],
      });
      expect(a.stateMachine.listContextEntries({ taskId: nasty, topics: [`x' OR '1'='1`] })).toEqual([entry]);
    });
  });

  describe('LoopDetector end to end', () => {
    const detectorOn = (options: LoopDetectorOptions = {}) =>
      new LoopDetector(a.stateMachine, { attemptStore: a.attemptStore, clock: a.clock, ...options });

    it('seed Test 1: completed task revisit → force_next', async () => {
      const loopDetector = detectorOn();
      a.stateMachine.upsertTask({ id: 'T3.4.2', title: 'dashboard' });
      for (let i = 0; i < 4; i++) {
        a.clock.advance(1000);
        loopDetector.recordAttempt('T3.4.2', 'done', [], ['Implemented dashboard.tsx'], `session_${i}`);
      }
      const result = loopDetector.detectLoop('T3.4.2');
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
      expect(a.attemptStore.listSince('T3.4.2', 0)).toEqual([]);
      expect(loopDetector.detectLoop('T3.4.2').isLooping).toBe(false);
    });

    it('seed Test 2: blocked task spin → unblock_authority, then escalate when it persists', async () => {
      const loopDetector = detectorOn();
      a.stateMachine.upsertTask({ id: 'T3.4.3' });
      const blockers = ['critic:design_system unavailable'];
      for (let i = 0; i < 3; i++)
        loopDetector.recordAttempt('T3.4.3', 'blocked', blockers, [], `session_${i}`);
      const result = loopDetector.detectLoop('T3.4.3');
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
        loopDetector.recordAttempt('T3.4.3', 'blocked', blockers, [], `session_${i}`);
      const again = loopDetector.detectLoop('T3.4.3');
      expect(again.recommendation).toBe('escalate');
      const escalated = await loopDetector.applyRecovery(again);
      expect(escalated.applied && escalated.entry.topic).toBe('loop_escalation');
      expect(a.stateMachine.getTask('T3.4.3')).toMatchObject({ status: 'blocked' });
      expect(
        a.stateMachine
          .listContextEntries({ topics: RECOVERY_TOPICS })
          .map((e) => [e.topic, e.timestamp - T0]),
      ).toEqual([
        ['loop_escalation', 60_000],
        ['unblock_authority', 0],
      ]);
    });

    it('seed Test 3: no progress repeat → force_next after 5 attempts', async () => {
      const loopDetector = detectorOn();
      const work = ['Read file A', 'Parse config'];
      for (let i = 0; i < 5; i++)
        loopDetector.recordAttempt('T7.1.2', 'in_progress', [], work, `session_${i}`);
      const result = loopDetector.detectLoop('T7.1.2');
      expect(result).toMatchObject({
        loopType: 'no_progress_repeat',
        recommendation: 'force_next',
        attemptCount: 5,
      });
      const outcome = await loopDetector.applyRecovery(result);
      // the state machine does not know T7.1.2: the entry is written, no task is changed
      expect(outcome.applied && outcome.task).toBeNull();
      const [entry] = a.stateMachine.listContextEntries({ taskId: 'T7.1.2' });
      expect(entry?.metadata).toMatchObject({
        loopType: 'no_progress_repeat',
        attemptCount: 5,
        taskKnown: false,
      });
      expect(entry?.metadata.evidence).toHaveLength(5);
    });

    it('a second detector on the same storage resumes: attempts in the window and the grant state', async () => {
      const first = detectorOn();
      const blockers = ['missing auth token'];
      for (let i = 0; i < 2; i++) first.recordAttempt('T1', 'blocked', blockers, [], `s${i}`);
      const second = detectorOn();
      second.recordAttempt('T1', 'blocked', blockers, [], 's2');
      const result = second.detectLoop('T1');
      expect(result).toMatchObject({ isLooping: true, recommendation: 'unblock_authority', attemptCount: 3 });
      expect((await second.applyRecovery(result)).applied).toBe(true);
      // the first detector's cached view is stale; storage decides: nothing to recover twice
      const stale = await first.applyRecovery({ ...result });
      expect(stale.applied).toBe(false);

      const third = detectorOn();
      expect(third.detectLoop('T1').isLooping).toBe(false);
      for (let i = 0; i < 3; i++) third.recordAttempt('T1', 'blocked', blockers, [], `t${i}`);
      expect(third.detectLoop('T1').recommendation).toBe('escalate');
    });

    it('attempts outside the window do not count after a restart', () => {
      const first = detectorOn({ attemptWindow: 60_000 });
      for (let i = 0; i < 3; i++) first.recordAttempt('T1', 'done', [], [], `s${i}`);
      a.clock.advance(60_001);
      const second = detectorOn({ attemptWindow: 60_000 });
      expect(second.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 0 });
      expect(second.getStatus()).toEqual({});
      expect(second.prune()).toBe(3);
    });
  });
});
