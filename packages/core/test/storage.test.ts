import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../src/index.js';
import { InMemoryStorage, ManualClock, TASK_STATUSES, type TaskStatus } from '../src/index.js';
import { UndoJournal } from '../src/kernel/UndoJournal.js';

const T0 = 1_760_825_000_000;

function attempt(taskId: string, timestamp: number): Attempt {
  return { taskId, timestamp, status: 'in_progress', blockers: [], completedWork: [], sessionId: 's' };
}

/** Everything the in-memory storage holds about tasks A and B. */
function snapshot(storage: InMemoryStorage) {
  return {
    tasks: storage.stateMachine.listTasks(),
    events: ['A', 'B'].map((id) => storage.stateMachine.listTaskEvents(id)),
    entries: storage.stateMachine.listContextEntries(),
    entriesOfA: storage.stateMachine.listContextEntries({ taskId: 'A' }),
    attempts: ['A', 'B'].map((id) => storage.attempts.listSince(id, 0)),
    // the summary is a map: its order is not part of the contract
    summary: [...storage.attempts.summarize(0)].sort(([a], [b]) => a.localeCompare(b)),
  };
}

type Op =
  | { kind: 'upsert'; taskId: string }
  | { kind: 'transition'; taskId: string; status: TaskStatus }
  | { kind: 'entry'; taskIds: string[] }
  | { kind: 'append'; taskId: string; at: number }
  | { kind: 'clear'; taskId: string }
  | { kind: 'prune'; before: number; limit: number };

const taskId = fc.constantFrom('A', 'B');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('upsert' as const), taskId }),
  fc.record({ kind: fc.constant('transition' as const), taskId, status: fc.constantFrom(...TASK_STATUSES) }),
  fc.record({ kind: fc.constant('entry' as const), taskIds: fc.uniqueArray(taskId, { maxLength: 2 }) }),
  fc.record({ kind: fc.constant('append' as const), taskId, at: fc.integer({ min: 0, max: 100 }) }),
  fc.record({ kind: fc.constant('clear' as const), taskId }),
  fc.record({
    kind: fc.constant('prune' as const),
    before: fc.integer({ min: 0, max: 100 }),
    limit: fc.integer({ min: 1, max: 5 }),
  }),
);

function apply(storage: InMemoryStorage, o: Op): void {
  const { stateMachine, attempts } = storage;
  switch (o.kind) {
    case 'upsert':
      stateMachine.upsertTask({ id: o.taskId, title: `title ${o.taskId}` });
      break;
    case 'transition':
      if (stateMachine.getTask(o.taskId)) stateMachine.transition(o.taskId, o.status, 'why');
      break;
    case 'entry':
      stateMachine.addContextEntry({
        entryType: 'learning',
        topic: 't',
        content: 'c',
        relatedTasks: o.taskIds,
      });
      break;
    case 'append':
      attempts.append(attempt(o.taskId, T0 + o.at));
      break;
    case 'clear':
      attempts.clear(o.taskId);
      break;
    case 'prune':
      attempts.prune(T0 + o.before, o.limit);
      break;
  }
}

describe('InMemoryStorage transaction', () => {
  it('property: a transaction that throws leaves the storage exactly as before, whatever it wrote', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.array(op, { maxLength: 30 }), (before, inside) => {
        const storage = new InMemoryStorage({ clock: new ManualClock(T0) });
        for (const o of before) apply(storage, o);
        const expected = snapshot(storage);
        expect(() =>
          storage.transaction(() => {
            for (const o of inside) apply(storage, o);
            throw new Error('rollback');
          }),
        ).toThrow('rollback');
        expect(snapshot(storage)).toEqual(expected);
        // and the storage keeps working: the same writes committed give what they give without a transaction
        const twin = new InMemoryStorage({ clock: new ManualClock(T0) });
        for (const o of [...before, ...inside]) apply(twin, o);
        storage.transaction(() => {
          for (const o of inside) apply(storage, o);
        });
        expect(snapshot(storage)).toEqual(snapshot(twin));
      }),
      { numRuns: 200 },
    );
  });

  it('the state machine alone rolls back too (its transaction is the storage journal)', () => {
    const storage = new InMemoryStorage({ clock: new ManualClock(T0) });
    expect(() =>
      storage.stateMachine.transaction(() => {
        storage.stateMachine.upsertTask({ id: 'A' });
        storage.attempts.append(attempt('A', T0));
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(storage.stateMachine.getTask('A')).toBeUndefined();
    expect(storage.attempts.listSince('A', 0)).toEqual([]);
  });

  it('UndoJournal: nothing is recorded outside a transaction; a savepoint reverts only its part', () => {
    const journal = new UndoJournal();
    const log: string[] = [];
    journal.record(() => log.push('never'));
    expect(journal.active).toBe(false);
    journal.run(() => {
      expect(journal.active).toBe(true);
      journal.record(() => log.push('outer'));
      expect(() =>
        journal.run(() => {
          journal.record(() => log.push('inner'));
          throw new Error('inner');
        }),
      ).toThrow('inner');
    });
    expect(log).toEqual(['inner']);
    expect(journal.active).toBe(false);
  });
});
