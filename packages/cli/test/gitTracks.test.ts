import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitTracks } from '../src/files/gitTracks.js';

describe('gitTracks', () => {
  const repo = mkdtempSync(join(tmpdir(), 'loopguard-gittracks-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  mkdirSync(join(repo, '.claude'));
  writeFileSync(join(repo, '.claude', 'settings.json'), '{}\n');
  writeFileSync(join(repo, 'untracked.txt'), 'x\n');
  git('add', '.claude/settings.json');

  it('says whether a file, or any file under a folder, is tracked', () => {
    expect(gitTracks('.claude/settings.json', repo)).toBe(true);
    expect(gitTracks('.', join(repo, '.claude'))).toBe(true);
    expect(gitTracks('untracked.txt', repo)).toBe(false);
    expect(gitTracks('.', tmpdir())).toBe(false); // outside any repository
  });

  it("never runs the repository's own program (core.fsmonitor), as init and the state folder ask it", () => {
    const ran = join(repo, 'fsmonitor-ran');
    git('config', 'core.fsmonitor', `touch ${ran}; false`);
    expect(gitTracks('.claude/settings.json', repo)).toBe(true);
    expect(existsSync(ran)).toBe(false);
  });
});
