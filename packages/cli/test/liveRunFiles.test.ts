import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunLock, RunRecord } from '@loopguard/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { runDirectory } from '../src/run/artifacts.js';
import { becomeLiveRun } from '../src/run/liveRun.js';

const root = mkdtempSync(join(tmpdir(), 'loopguard-live-run-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a live run's files in the project's .loopguard", () => {
  it('leaves no temporary agent file behind when recording the agent fails (doors71)', () => {
    const run = { id: 'r1', cwd: root } as RunRecord;
    const folder = runDirectory(root, run.id);
    // the agent's file is a folder with a file in it: the rename over it fails
    mkdirSync(join(folder, 'agent.json'), { recursive: true });
    writeFileSync(join(folder, 'agent.json', 'x'), '');
    const lock: RunLock = { setOwner: () => {}, release: () => {} };
    expect(() => becomeLiveRun(lock, run)).toThrow();
    expect(readdirSync(folder)).toEqual(['agent.json']);
  });
});
