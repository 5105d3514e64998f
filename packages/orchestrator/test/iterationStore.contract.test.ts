import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStateMachine, InvalidInputError, ManualClock, type StateMachine } from '@loopguard/core';
import { InMemoryIterationStore, type IterationStore } from '@loopguard/core/iteration';
import { openLoopGuardDatabase, SqliteIterationStore } from '@loopguard/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { IterationSessions } from '../src/index.js';
import { T0 } from './helpers.js';

interface Adapter {
  store: IterationStore;
  stateMachine: StateMachine;
  reopen?: () => { store: IterationStore; stateMachine: StateMachine };
  close(): void;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const ADAPTERS: Array<{ name: string; create(clock: ManualClock): Adapter }> = [
  {
    name: 'in-memory',
    create: (clock) => ({
      store: new InMemoryIterationStore(),
      stateMachine: new InMemoryStateMachine({ clock }),
      close() {},
    }),
  },
  {
    name: 'sqlite file',
    create(clock) {
      const dir = mkdtempSync(join(tmpdir(), 'loopguard-iter-'));
      dirs.push(dir);
      const path = join(dir, 'state.db');
      let db = openLoopGuardDatabase(path, { clock });
      return {
        store: new SqliteIterationStore({ db: db.db }),
        stateMachine: db.stateMachine,
        reopen() {
          db.close();
          db = openLoopGuardDatabase(path, { clock });
          return { store: new SqliteIterationStore({ db: db.db }), stateMachine: db.stateMachine };
        },
        close: () => db.close(),
      };
    },
  },
];

describe.each(ADAPTERS)('IterationStore contract: $name', ({ create }) => {
  it('creates sessions, lists them by task and status, ends them', () => {
    const a = create(new ManualClock(T0));
    const config = { maxIterations: 3, completionPromises: ['Done'], circuitBreakerThreshold: 2 };
    const s1 = a.store.createSession({ taskId: 'T1', config, createdAt: T0 });
    const s2 = a.store.createSession({ taskId: 'T2', config, createdAt: T0 + 1 });
    expect(s1).toEqual({
      id: s1.id,
      taskId: 'T1',
      config,
      status: 'active',
      endReason: null,
      createdAt: T0,
      updatedAt: T0,
    });
    expect(Object.isFrozen(s1)).toBe(true);
    expect(a.store.getSession(s1.id)).toEqual(s1);
    expect(a.store.getSession('999999')).toBeUndefined();
    expect(a.store.getSession('not-an-id')).toBeUndefined();
    expect(a.store.listSessions().map((s) => s.id)).toEqual([s1.id, s2.id]);
    expect(a.store.listSessions({ taskId: 'T2' }).map((s) => s.id)).toEqual([s2.id]);
    const ended = a.store.endSession(s1.id, 'blocked', 'Iteration safety guard: thrashing', T0 + 5);
    expect(ended).toMatchObject({
      status: 'blocked',
      endReason: 'Iteration safety guard: thrashing',
      updatedAt: T0 + 5,
      createdAt: T0,
    });
    expect(a.store.listSessions({ status: 'active' }).map((s) => s.id)).toEqual([s2.id]);
    expect(() => a.store.endSession('424242', 'completed', 'x', T0)).toThrow(InvalidInputError);
    a.close();
  });

  it('stores checkpoints in order, with agent context', () => {
    const a = create(new ManualClock(T0));
    const { id } = a.store.createSession({
      taskId: 'T1',
      config: { maxIterations: 2, completionPromises: [] },
      createdAt: T0,
    });
    expect(a.store.latestCheckpoint(id)).toBeUndefined();
    const start = a.store.addCheckpoint({
      sessionId: id,
      taskId: 'T1',
      iterationNumber: 0,
      trigger: 'start',
      createdAt: T0,
    });
    const error = a.store.addCheckpoint({
      sessionId: id,
      taskId: 'T1',
      iterationNumber: 0,
      trigger: 'error',
      agentContext: { safetyGuardTriggered: 'max_iterations', message: 'm' },
      createdAt: T0 + 1,
    });
    expect(start).toEqual({
      id: start.id,
      sessionId: id,
      taskId: 'T1',
      iterationNumber: 0,
      trigger: 'start',
      agentContext: null,
      createdAt: T0,
    });
    expect(a.store.listCheckpoints(id)).toEqual([start, error]);
    expect(a.store.latestCheckpoint(id)).toEqual(error);
    expect(a.store.listCheckpoints('999999')).toEqual([]);
    expect(() =>
      a.store.addCheckpoint({
        sessionId: '999999',
        taskId: 'T1',
        iterationNumber: 0,
        trigger: 'start',
        createdAt: T0,
      }),
    ).toThrow(/checkpoint\.sessionId "999999" is not a known iteration session/);
    expect(() =>
      a.store.addCheckpoint({
        sessionId: id,
        taskId: 'T1',
        iterationNumber: -1,
        trigger: 'start',
        createdAt: T0,
      }),
    ).toThrow(/checkpoint\.iterationNumber must be an integer ≥ 0/);
    expect(() =>
      a.store.addCheckpoint({
        sessionId: id,
        taskId: 'T1',
        iterationNumber: 1,
        trigger: 'oops' as never,
        createdAt: T0,
      }),
    ).toThrow(/checkpoint\.trigger must be one of/);
    expect(a.store.listCheckpoints(id)).toHaveLength(2);
    a.close();
  });

  it('records history by iteration, round-tripping the validation result exactly', () => {
    const a = create(new ManualClock(T0));
    const { id } = a.store.createSession({
      taskId: 'T1',
      config: { maxIterations: 9, completionPromises: [] },
      createdAt: T0,
    });
    const second = a.store.appendHistory({
      sessionId: id,
      taskId: 'T1',
      iteration: 2,
      validationResult: {
        passed: false,
        score: 0.25,
        flags: [{ message: 'Error in file: /src/api.ts', severity: 'error' }],
      },
      output: 'FAIL src/api.test.ts',
      recordedAt: T0 + 2,
    });
    a.store.appendHistory({
      sessionId: id,
      taskId: 'T1',
      iteration: 1,
      validationResult: {},
      recordedAt: T0 + 1,
    });
    expect(second).toEqual({
      sessionId: id,
      taskId: 'T1',
      iteration: 2,
      validationResult: {
        passed: false,
        score: 0.25,
        flags: [{ message: 'Error in file: /src/api.ts', severity: 'error' }],
      },
      output: 'FAIL src/api.test.ts',
      completionPromise: null,
      recordedAt: T0 + 2,
    });
    expect(a.store.listHistory(id).map((r) => [r.iteration, r.validationResult])).toEqual([
      [1, {}],
      [2, second.validationResult],
    ]);
    expect(() =>
      a.store.appendHistory({
        sessionId: id,
        taskId: 'T1',
        iteration: 2,
        validationResult: { passed: true },
        recordedAt: T0,
      }),
    ).toThrow(/record\.iteration 2 of session .* is already recorded/);
    expect(() =>
      a.store.appendHistory({
        sessionId: id,
        taskId: 'T1',
        iteration: 3,
        validationResult: { score: 2 },
        recordedAt: T0,
      }),
    ).toThrow(/record\.validationResult\.score must be a number in 0\.\.1/);
    expect(() =>
      a.store.appendHistory({
        sessionId: id,
        taskId: 'T1',
        iteration: 0,
        validationResult: {},
        recordedAt: T0,
      }),
    ).toThrow(/record\.iteration must be an integer ≥ 1/);
    expect(a.store.listHistory(id)).toHaveLength(2);
    a.close();
  });

  it('IterationSessions over the adapter: a guard block is stored and survives a restart', () => {
    const clock = new ManualClock(T0);
    const a = create(clock);
    a.stateMachine.upsertTask({ id: 'T1' });
    const sessions = new IterationSessions({ stateMachine: a.stateMachine, store: a.store, clock });
    const { session } = sessions.startIteration('T1', { maxIterations: 5, completionPromises: [] });
    for (let i = 0; i < 3; i++) {
      expect(sessions.nextIteration(session.id).ok).toBe(true);
      sessions.recordValidation(session.id, { passed: false });
    }
    const blocked = sessions.nextIteration(session.id);
    expect(blocked).toMatchObject({ ok: false, blockedBy: 'circuit_breaker' });

    const after = a.reopen ? a.reopen() : a;
    const view = new IterationSessions({
      stateMachine: after.stateMachine,
      store: after.store,
      clock,
    }).getSession(session.id);
    expect(view?.session).toMatchObject({
      status: 'blocked',
      endReason: 'Iteration safety guard: circuit_breaker',
    });
    expect(view?.checkpoints.map((c) => [c.trigger, c.iterationNumber])).toEqual([
      ['start', 0],
      ['iteration', 1],
      ['iteration', 2],
      ['iteration', 3],
      ['error', 3],
    ]);
    expect(view?.checkpoints.at(-1)?.agentContext).toEqual({
      safetyGuardTriggered: 'circuit_breaker',
      message:
        'Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3). Manual intervention required.',
    });
    expect(view?.history.map((r) => r.validationResult.passed)).toEqual([false, false, false]);
    expect(after.stateMachine.getTask('T1')).toMatchObject({
      status: 'blocked',
      blockedReason: 'Iteration safety guard: circuit_breaker',
    });
    a.close();
  });
});

describe('SqliteIterationStore', () => {
  it('a failing step rolls back the task transition and the checkpoint (one transaction)', () => {
    const clock = new ManualClock(T0);
    const db = openLoopGuardDatabase(':memory:', { clock });
    const store = new SqliteIterationStore({ db: db.db });
    db.stateMachine.upsertTask({ id: 'T1' });
    const failing: SqliteIterationStore = Object.assign(Object.create(store) as SqliteIterationStore, {
      endSession: () => {
        throw new Error('simulated crash after the checkpoint');
      },
    });
    const sessions = new IterationSessions({ stateMachine: db.stateMachine, store: failing, clock });
    const { session } = sessions.startIteration('T1', { maxIterations: 1, completionPromises: [] });
    sessions.nextIteration(session.id);
    sessions.recordValidation(session.id, { passed: true });
    expect(() => sessions.nextIteration(session.id)).toThrow('simulated crash after the checkpoint');
    expect(db.stateMachine.getTask('T1')?.status).toBe('in_progress');
    expect(store.listCheckpoints(session.id).map((c) => c.trigger)).toEqual(['start', 'iteration']);
    expect(store.getSession(session.id)?.status).toBe('active');
    db.close();
  });

  it('the seed-style SQL reads checkpoints with their agent_context', () => {
    const clock = new ManualClock(T0);
    const db = openLoopGuardDatabase(':memory:', { clock });
    db.stateMachine.upsertTask({ id: 'T1' });
    const sessions = new IterationSessions({
      stateMachine: db.stateMachine,
      store: new SqliteIterationStore({ db: db.db }),
      clock,
    });
    const { session } = sessions.startIteration('T1', { maxIterations: 1, completionPromises: [] });
    sessions.nextIteration(session.id);
    sessions.recordValidation(session.id, { passed: true });
    sessions.nextIteration(session.id);
    const rows = db.db
      .prepare(
        "SELECT task_id, iteration_number, trigger, json_extract(agent_context, '$.safetyGuardTriggered') AS guard FROM iteration_checkpoints WHERE trigger = 'error' ORDER BY created_at DESC",
      )
      .all();
    expect(rows).toEqual([{ task_id: 'T1', iteration_number: 1, trigger: 'error', guard: 'max_iterations' }]);
    expect(
      () =>
        new SqliteIterationStore({
          db: openLoopGuardDatabase(':memory:').db.exec('DROP TABLE iteration_history'),
        }),
    ).toThrow(/is the schema migrated to version 2/);
    db.close();
  });
});
