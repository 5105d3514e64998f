import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLoopGuardDatabase } from '../src/index.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

// trust44: a framework's `openLoopGuardDatabase('.loopguard/state.db', { createDirectory: true })`
// (docs/agents.md) made the folder 0755 and the database, its -wal and -shm 0644 under umask 022:
// the runs' entries (the looping commands, their output) were readable by every local user.
describe('a database and folder it makes are the user’s alone (trust44)', () => {
  it('under umask 022: the folder 0700, state.db, -wal and -shm 0600', () => {
    const previous = process.umask(0o022);
    try {
      const path = join(mkdtempSync(join(tmpdir(), 'loopguard-private-')), '.loopguard', 'state.db');
      const database = openLoopGuardDatabase(path, { createDirectory: true });
      database.stateMachine.addContextEntry({
        entryType: 'learning',
        topic: 'loop_nudge',
        content: 'curl -H "Authorization: Bearer sk-1" x',
      });
      // on main: 0755, 0644, 0644, 0644
      expect(modeOf(join(path, '..'))).toBe(0o700);
      expect(modeOf(path)).toBe(0o600);
      expect(modeOf(`${path}-wal`)).toBe(0o600);
      expect(modeOf(`${path}-shm`)).toBe(0o600);
      database.close();
    } finally {
      process.umask(previous);
    }
  });

  it('an existing database keeps the mode it has (the user chose it)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-private-'));
    const path = join(dir, 'state.db');
    openLoopGuardDatabase(path).close();
    const shared = join(dir, 'shared.db');
    writeFileSync(shared, '', { mode: 0o640 });
    openLoopGuardDatabase(shared).close();
    expect(modeOf(shared)).toBe(0o640);
    expect(modeOf(path)).toBe(0o600);
  });
});

// secrets64: the folder it made had no `.gitignore`: in a repository, `git add -A` took the
// database (the nudges quote the looping commands and their output) into the next commit and push
describe('a folder it makes is kept out of git (secrets64)', () => {
  it('gets a .gitignore of `*`; a folder that was there gets none', () => {
    const repository = mkdtempSync(join(tmpdir(), 'loopguard-private-'));
    execFileSync('git', ['init', '-q'], { cwd: repository });
    const path = join(repository, '.loopguard', 'state.db');
    const database = openLoopGuardDatabase(path, { createDirectory: true });
    database.stateMachine.addContextEntry({ entryType: 'learning', topic: 'loop_nudge', content: 'sk-1' });
    database.close();
    expect(readFileSync(join(repository, '.loopguard', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(String(execFileSync('git', ['status', '--porcelain', '-uall'], { cwd: repository }))).toBe('');
    mkdirSync(join(repository, 'data'));
    openLoopGuardDatabase(join(repository, 'data', 'state.db'), { createDirectory: true }).close();
    expect(String(execFileSync('git', ['status', '--porcelain', '-uall'], { cwd: repository }))).toBe(
      '?? data/state.db\n',
    );
  });
});
