import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoopDetector } from '../attempts/LoopDetector.js';
import type { ManualClock } from '../kernel/clock.js';
import { ConfigurationError, InvalidInputError, StorageError } from '../kernel/errors.js';
import type { AttemptStore, StateMachine } from '../storage/ports.js';
import type { Storage } from '../storage/storage.js';
import { attempt, T0 } from './contractSubject.js';

/** One synchronous storage adapter under the synchronous contracts, with its manual clock. */
export interface SyncContractSubject {
  /** The clock the storage stamps with, at {@link T0} when opened. */
  clock: ManualClock;
  /** The state machine port. */
  stateMachine: StateMachine;
  /** The attempt store port. */
  attemptStore: AttemptStore;
  /** Both ports with their shared (synchronous, nestable) transaction. */
  storage: Storage;
  /** Closes the storage. */
  close(): void;
}

/**
 * What only synchronous ports promise beyond the shared contracts: nested transactions, values returned at once, size limits and summaries checked call by call.
 * @param create - opens a fresh synchronous adapter (empty storage, manual clock at {@link T0}) for each test.
 */
export function syncStorageContract(create: () => SyncContractSubject): void {
  let a: SyncContractSubject;
  beforeEach(() => {
    a = create();
  });
  afterEach(() => {
    a.close();
  });
  describe('StateMachine: tasks', () => {
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
  });
}
