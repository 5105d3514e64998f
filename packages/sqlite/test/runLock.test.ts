import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRunLock, liveRunOwner, openLoopGuardDatabase, SqliteRunStore } from '../src/index.js';

const run = { id: 'run-1', command: ['agent'], options: {}, cwd: '/x' };

describe('the run lock and the runs it makes interrupted', () => {
  it('a running run is reported interrupted unless the live lock holder is that run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-lock-'));
    const database = openLoopGuardDatabase(join(dir, 'state.db'));
    const runs = new SqliteRunStore({ db: database.db });
    runs.createRun(run);
    expect(runs.getRun('run-1')).toMatchObject({
      status: 'interrupted',
      reason: expect.stringMatching(/gone/),
    });
    const lock = acquireRunLock(dir);
    expect(lock).not.toBeNull();
    lock?.setOwner({ runId: 'run-1', pid: process.pid, agentToken: 't', agentPgid: null });
    expect(liveRunOwner(dir)).toMatchObject({ runId: 'run-1', pid: process.pid });
    expect(runs.getRun('run-1')?.status).toBe('running');
    expect(runs.listRuns()[0]?.status).toBe('running');
    runs.updateRun('run-1', { status: 'paused' });
    expect(runs.getRun('run-1')?.status).toBe('paused');
    lock?.release();
    expect(liveRunOwner(dir)).toBeNull();
    database.close();
  });

  it('leaves no temporary owner file behind when recording the owner fails (doors71)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-lock-'));
    // the owner's file is a folder with a file in it: the rename over it fails
    mkdirSync(join(dir, 'run.owner.json'));
    writeFileSync(join(dir, 'run.owner.json', 'x'), '');
    const lock = acquireRunLock(dir);
    expect(() =>
      lock?.setOwner({ runId: 'run-1', pid: process.pid, agentToken: 't', agentPgid: null }),
    ).toThrow();
    lock?.release();
    expect(readdirSync(dir).sort()).toEqual(['run.lock', 'run.owner.json']);
  });

  it('an in-memory store has no lock to check', () => {
    const database = openLoopGuardDatabase(':memory:');
    const runs = new SqliteRunStore({ db: database.db });
    expect(runs.createRun(run).status).toBe('running');
  });
});
