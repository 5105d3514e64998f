import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqliteRunStore } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import type { AgentIteration } from '../src/run/agentIteration.js';
import type { IterationJudgement } from '../src/run/judgeIteration.js';
import { type IterationToSave, saveIteration } from '../src/run/saveIteration.js';

const ran = {
  result: { exitCode: 0, output: 'working\n' },
  changes: null,
  stopVerdict: null,
  malformed: { lines: 0 },
} as unknown as AgentIteration;
const judged = { errors: {}, metrics: {}, completion: {} } as unknown as IterationJudgement;
const iteration: IterationToSave = {
  n: 2,
  startedAt: 0,
  endedAt: 1,
  model: null,
  ran,
  judged,
  verdict: { state: 'CLOSED', tripped: false, progress: 'progress', readings: [], reason: null },
};
/** A run directory whose `iterations` is a file: every artifact write fails, as on a full disk. */
function unwritableRunDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-save-'));
  writeFileSync(join(dir, 'iterations'), 'not a directory');
  return dir;
}
const run = (dir: string) => ({ id: 'r1', dir, breaker: {} as never, modelIndex: 0 });

describe('saveIteration when the disk is full', () => {
  it('the record failing too: its error ends the run and the failed artifact write rejects nothing', async () => {
    const full = new Error('SQLITE_FULL: database or disk is full');
    const runs = {
      recordIteration: () => {
        throw full;
      },
      updateRun: () => {},
    } as unknown as SqliteRunStore;
    expect(() => saveIteration(runs, run(unwritableRunDir()), iteration)).toThrow(full);
    // an unhandled rejection of the abandoned write would fail this test file
    await new Promise((r) => setTimeout(r, 50));
  });

  it('the record written: the pending write resolves with the artifact error, for the run to report', async () => {
    const recorded: number[] = [];
    const runs = {
      recordIteration: (r: { iteration: number }) => recorded.push(r.iteration),
      updateRun: () => {},
    } as unknown as SqliteRunStore;
    const saved = saveIteration(runs, run(unwritableRunDir()), iteration);
    expect(recorded).toEqual([2]);
    expect((await saved.written)?.message).toMatch(/ENOTDIR|EEXIST/);
  });
});
