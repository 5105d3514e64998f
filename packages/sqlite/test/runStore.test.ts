import { ManualClock } from '@loopguard/core';
import { StagnationBreaker } from '@loopguard/core/breaker';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { type Migration, migrate, openLoopGuardDatabase, SqliteRunStore } from '../src/index.js';

function open() {
  const clock = new ManualClock(1000);
  const store = openLoopGuardDatabase(':memory:', { clock });
  return { clock, store, runs: new SqliteRunStore({ db: store.db, clock }) };
}

const run = { id: 'run-1', command: ['bash', 'agent.sh'], options: { maxIterations: 5 }, cwd: '/tmp/x' };

describe('SqliteRunStore', () => {
  it('creates, updates and lists runs', () => {
    const { runs, clock } = open();
    expect(runs.createRun(run)).toMatchObject({
      id: 'run-1',
      status: 'running',
      iteration: 0,
      breakerState: 'CLOSED',
      breaker: null,
    });
    clock.advance(5);
    runs.createRun({ ...run, id: 'run-2' });
    runs.updateRun('run-1', {
      status: 'paused',
      iteration: 3,
      reason: 'stagnation',
      exitCode: 3,
      breaker: { state: 'OPEN' },
    });
    expect(runs.getRun('run-1')).toMatchObject({
      status: 'paused',
      iteration: 3,
      exitCode: 3,
      breaker: { state: 'OPEN' },
      command: run.command,
    });
    expect(runs.listRuns().map((r) => r.id)).toEqual(['run-2', 'run-1']);
    expect(runs.getRun('nope')).toBeNull();
  });

  it('rejects a duplicate run, an empty command and an unknown run, writing nothing', () => {
    const { runs } = open();
    runs.createRun(run);
    expect(() => runs.createRun(run)).toThrow(/already exists/);
    expect(() => runs.createRun({ ...run, id: 'x', command: [] })).toThrow(/command/);
    expect(() => runs.updateRun('nope', { status: 'paused' })).toThrow(/does not exist/);
    expect(runs.listRuns()).toHaveLength(1);
  });

  it('persists a breaker transitions as rows scoped to the run, and sets breaker_state', () => {
    const { runs, clock } = open();
    runs.createRun(run);
    runs.createRun({ ...run, id: 'other' });
    const breaker = new StagnationBreaker({ runId: 'run-1', stagnationThreshold: 1, cooldownMs: 0, clock });
    breaker.on('breakerStateChanged', (t) => runs.appendTransition(t));
    breaker.record({ iteration: 1, filesChanged: 0 });
    expect(breaker.state).toBe('HALF_OPEN');
    const rows = runs.transitions('run-1');
    expect(rows.map((t) => [t.from, t.to])).toEqual([
      ['CLOSED', 'OPEN'],
      ['OPEN', 'HALF_OPEN'],
    ]);
    expect(runs.transitions('run-1', rows[0]?.id).map((t) => t.to)).toEqual(['HALF_OPEN']);
    expect(runs.transitions('other')).toEqual([]);
    expect(runs.getRun('run-1')?.breakerState).toBe('HALF_OPEN');
    expect(runs.getRun('other')?.breakerState).toBe('CLOSED');
  });

  it('hands a corrupt breaker snapshot over as it is, and the breaker starts CLOSED from it', () => {
    const { runs, store } = open();
    runs.createRun(run);
    store.db.prepare("UPDATE runs SET breaker = '{not json' WHERE id = 'run-1'").run();
    const snapshot = runs.getRun('run-1')?.breaker;
    const breaker = new StagnationBreaker({ runId: 'run-1', snapshot });
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.restoreNotice).toContain('corrupt');
  });

  it('records iterations and never replaces one: recording the same iteration again is an error', () => {
    const { runs } = open();
    runs.createRun(run);
    const it1 = {
      runId: 'run-1',
      iteration: 1,
      startedAt: 1,
      endedAt: 2,
      exitCode: 0,
      progress: 'stalled' as const,
      signals: [],
    };
    runs.recordIteration(it1);
    expect(() => runs.recordIteration({ ...it1, progress: 'progress' })).toThrow(
      /iteration 1 of run "run-1" is already recorded; iteration records are never replaced/,
    );
    expect(runs.iterations('run-1')).toEqual([it1]);
  });
});

describe('migrations with a reserved gap', () => {
  it('applies versions in order, skipping a reserved number, and sets user_version to the last', () => {
    const db = new Database(':memory:');
    const seen: number[] = [];
    const step = (version: number): Migration => ({
      version,
      name: `v${version}`,
      up: () => seen.push(version),
    });
    expect(migrate(db, { migrations: [step(1), step(2), step(4)] })).toEqual({
      from: 0,
      to: 4,
      applied: ['v1', 'v2', 'v4'],
    });
    expect(db.pragma('user_version', { simple: true })).toBe(4);
    expect(migrate(db, { migrations: [step(1), step(2), step(3), step(4), step(5)] }).applied).toEqual([
      'v5',
    ]);
    expect(seen).toEqual([1, 2, 4, 5]);
  });

  it('rejects versions that do not increase', () => {
    const db = new Database(':memory:');
    const step = (version: number): Migration => ({ version, name: `v${version}`, up: () => {} });
    expect(() => migrate(db, { migrations: [step(1), step(1)] })).toThrow(/greater than 1/);
  });
});
