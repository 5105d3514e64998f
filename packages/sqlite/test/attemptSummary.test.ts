import { type Attempt, LoopDetector, ManualClock } from '@loopguard/core';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, openLoopGuardDatabase } from '../src/index.js';

const T0 = 1_760_825_000_000;

function attempt(taskId: string, timestamp: number): Attempt {
  return { taskId, timestamp, status: 'in_progress', blockers: [], completedWork: [], sessionId: 's' };
}

/** The summary table next to what a GROUP BY over the attempts says it must hold. */
function summaryAndTruth(db: Database.Database) {
  return {
    summary: db
      .prepare(
        'SELECT task_id, attempt_count, first_attempt, last_attempt FROM task_attempt_summary ORDER BY task_id',
      )
      .all(),
    truth: db
      .prepare(
        'SELECT task_id, count(*) AS attempt_count, min(timestamp) AS first_attempt, max(timestamp) AS last_attempt' +
          ' FROM attempts GROUP BY task_id ORDER BY task_id',
      )
      .all(),
  };
}

describe('task_attempt_summary (migration 3)', () => {
  it('summarises the attempts stored before the migration', () => {
    const db = new Database(':memory:');
    migrate(db, { migrations: MIGRATIONS.slice(0, 2) });
    const insert = db.prepare('INSERT INTO attempts (task_id, timestamp, status) VALUES (?, ?, ?)');
    for (const [taskId, at] of [
      ['T1', T0],
      ['T1', T0 + 5],
      ['T2', T0 + 1],
    ] as const)
      insert.run(taskId, at, 'blocked');
    expect(migrate(db).applied).toEqual(MIGRATIONS.slice(2).map((m) => m.name));
    expect(MIGRATIONS[2]?.name).toBe('task attempt summary');
    const { summary, truth } = summaryAndTruth(db);
    expect(summary).toEqual(truth);
    expect(summary).toHaveLength(2);
    db.close();
  });

  it('property: after any mix of writes — the adapter or plain SQL — the summary equals a GROUP BY', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('append' as const),
        task: fc.constantFrom('A', 'B', 'C'),
        at: fc.nat(50),
      }),
      fc.record({ kind: fc.constant('clear' as const), task: fc.constantFrom('A', 'B', 'C') }),
      fc.record({
        kind: fc.constant('prune' as const),
        before: fc.nat(50),
        limit: fc.integer({ min: 1, max: 4 }),
      }),
      fc.record({ kind: fc.constant('sqlDelete' as const), at: fc.nat(50) }),
      fc.record({
        kind: fc.constant('sqlMove' as const),
        task: fc.constantFrom('A', 'B', 'C'),
        at: fc.nat(50),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const store = openLoopGuardDatabase(':memory:');
        for (const o of ops) {
          if (o.kind === 'append') store.attemptStore.append(attempt(o.task, T0 + o.at));
          else if (o.kind === 'clear') store.attemptStore.clear(o.task);
          else if (o.kind === 'prune') store.attemptStore.prune(T0 + o.before, o.limit);
          else if (o.kind === 'sqlDelete')
            store.db.prepare('DELETE FROM attempts WHERE timestamp = ?').run(T0 + o.at);
          else
            store.db
              .prepare('UPDATE attempts SET task_id = ?, timestamp = timestamp + 1 WHERE timestamp <= ?')
              .run(o.task, T0 + o.at);
        }
        const { summary, truth } = summaryAndTruth(store.db);
        expect(summary).toEqual(truth);
        store.close();
      }),
      { numRuns: 150 },
    );
  });

  it('a failed transaction leaves the summary as it was', () => {
    const store = openLoopGuardDatabase(':memory:');
    store.attemptStore.append(attempt('A', T0));
    expect(() =>
      store.storage.transaction((tx) => {
        tx.attempts.append(attempt('A', T0 + 1));
        tx.attempts.append(attempt('B', T0 + 1));
        throw new Error('rollback');
      }),
    ).toThrow('rollback');
    expect(store.attemptStore.summarize(0)).toEqual(new Map([['A', { attemptCount: 1, lastAttempt: T0 }]]));
    store.close();
  });
});

describe('LoopDetector.getStatus paging on SQLite', () => {
  it('pages every task in the window in task-id order, with the total', () => {
    const clock = new ManualClock(T0);
    const store = openLoopGuardDatabase(':memory:', { clock });
    const detector = new LoopDetector(store.storage, { clock, attemptWindow: 1000 });
    for (let i = 0; i < 25; i++)
      detector.recordAttempt(`T${String(i).padStart(2, '0')}`, 'in_progress', [], []);
    clock.advance(500);
    detector.recordAttempt('T00', 'in_progress', [], ['more']);
    const seen: string[] = [];
    let page = detector.getStatus({ limit: 10 });
    expect(page.total).toBe(25);
    seen.push(...Object.keys(page.tasks));
    while (page.nextCursor !== null) {
      page = detector.getStatus({ limit: 10, cursor: page.nextCursor });
      seen.push(...Object.keys(page.tasks));
    }
    expect(seen).toEqual(Object.keys(detector.getStatus()).sort());
    expect(detector.getStatus({ limit: 1 }).tasks).toEqual({
      T00: { attemptCount: 2, lastAttempt: T0 + 500 },
    });
    // after the first attempts leave the window only T00 remains
    clock.advance(600);
    expect(detector.getStatus({ limit: 10 })).toEqual({
      tasks: { T00: { attemptCount: 1, lastAttempt: T0 + 500 } },
      total: 1,
      nextCursor: null,
    });
    store.close();
  });
});
