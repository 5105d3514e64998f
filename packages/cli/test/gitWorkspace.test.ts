import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitWorkspace } from '../src/run/GitWorkspace.js';

/** Every file under `folder`, relative to it, sorted. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1))
    .sort();
}

/** A git repository with one commit, and a private untracked file holding a key (mode 0600). */
function repositoryWithSecret(prefix = 'loopguard-ws-'): { dir: string; runDir: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
  git('init', '-q');
  git('config', 'user.email', 'agent@example.com');
  git('config', 'user.name', 'agent');
  writeFileSync(join(dir, 'README.md'), '# project\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  writeFileSync(join(dir, 'credentials.txt'), 'OPENAI_API_KEY=sk-proj-not-for-git\n', { mode: 0o600 });
  const runDir = join(dir, '.loopguard', 'runs', 'r1');
  mkdirSync(runDir, { recursive: true, mode: 0o700 });
  return { dir, runDir };
}

describe('GitWorkspace', () => {
  // secrets64: `git add -A` with a private index still wrote every untracked file's blob into the
  // repository's own .git/objects, mode 0444 in 0755 folders: a key the user kept in a 0600 file
  // became readable by every local user who can enter the project (and stayed until git gc)
  it('secrets64: a snapshot writes nothing into the repository, and its changes still come out', async () => {
    const { dir, runDir } = repositoryWithSecret();
    const repository = join(dir, '.git');
    const before = filesUnder(repository);
    const workspace = await GitWorkspace.open(dir, runDir);
    expect(workspace).not.toBeNull();
    const first = await (workspace as GitWorkspace).snapshot();
    writeFileSync(join(dir, 'README.md'), '# project\nfixed\n');
    const second = await (workspace as GitWorkspace).snapshot();
    const changes = await (workspace as GitWorkspace).changes(first, second);
    expect(changes.files).toEqual(['README.md']);
    expect(changes.patch).toContain('+fixed');
    expect(filesUnder(repository)).toEqual(before);
    expect(filesUnder(runDir).some((file) => file.startsWith('objects/'))).toBe(true);
  });

  // shell66: the repository's own config named programs git ran for loopguard's snapshot: an
  // fsmonitor hook on `git add`, a clean filter on every file its attributes name, a textconv on diff
  it("shell66: a snapshot and its changes run no program the repository's config names", async () => {
    const { dir, runDir } = repositoryWithSecret();
    const ran = join(dir, '..', `${dir.split('/').pop()}-ran`);
    mkdirSync(ran);
    const program = (name: string) => {
      const path = join(ran, `${name}.sh`);
      writeFileSync(path, `#!/bin/sh\ntouch '${join(ran, name)}'\nexec cat "$@" 2>/dev/null\n`, {
        mode: 0o755,
      });
      return path;
    };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
    writeFileSync(join(dir, '.gitattributes'), '*.txt filter=tidy diff=pretty\n');
    git('config', 'core.fsmonitor', program('fsmonitor'));
    git('config', 'filter.tidy.clean', program('clean'));
    git('config', 'filter.tidy.required', 'true');
    git('config', 'diff.pretty.textconv', program('textconv'));
    const workspace = (await GitWorkspace.open(dir, runDir)) as GitWorkspace;
    const first = await workspace.snapshot();
    writeFileSync(join(dir, 'notes.txt'), 'a note\n');
    const changes = await workspace.changes(first, await workspace.snapshot());
    expect(changes.files).toEqual(['notes.txt']);
    expect(changes.patch).toContain('+a note');
    expect(readdirSync(ran).sort()).toEqual(['clean.sh', 'fsmonitor.sh', 'textconv.sh']);
  });

  it('secrets64: in a linked worktree the snapshot reads the shared objects and writes none', async () => {
    const { dir } = repositoryWithSecret();
    const linked = `${dir}-linked`;
    execFileSync('git', ['worktree', 'add', '-q', linked], { cwd: dir });
    const objects = join(dir, '.git', 'objects');
    const before = filesUnder(objects);
    const runDir = join(linked, '.loopguard', 'runs', 'r1');
    mkdirSync(runDir, { recursive: true });
    const workspace = (await GitWorkspace.open(linked, runDir)) as GitWorkspace;
    const first = await workspace.snapshot();
    writeFileSync(join(linked, 'README.md'), '# project\nfixed\n');
    const changes = await workspace.changes(first, await workspace.snapshot());
    expect(changes.patch).toContain('+fixed');
    expect(filesUnder(objects)).toEqual(before);
  });

  it("reads the repository's objects through a path with the alternates list's separator in it", async () => {
    const { dir, runDir } = repositoryWithSecret('loopguard-ws:"quoted"-');
    const committed = String(execFileSync('git', ['rev-parse', 'HEAD:README.md'], { cwd: dir })).trim();
    const workspace = (await GitWorkspace.open(dir, runDir)) as GitWorkspace;
    const first = await workspace.snapshot();
    writeFileSync(join(dir, 'README.md'), '# project\nfixed\n');
    const changes = await workspace.changes(first, await workspace.snapshot());
    expect(changes.patch).toContain('+fixed');
    // the committed blob is read from the repository, not copied into the run's folder
    expect(filesUnder(runDir)).not.toContain(`objects/${committed.slice(0, 2)}/${committed.slice(2)}`);
  });

  // git takes the exclusion of an ignored path as naming it: it stages the rest and exits 1 ("The
  // following paths are ignored…"), and every `loopguard run` there ended "internal error"
  it('snapshots a repository whose .gitignore lists .loopguard, and one that comes to list it', async () => {
    const { dir, runDir } = repositoryWithSecret();
    writeFileSync(join(runDir, '..', '..', 'state.db'), 'not for the snapshot');
    const workspace = (await GitWorkspace.open(dir, runDir)) as GitWorkspace;
    const first = await workspace.snapshot();
    writeFileSync(join(dir, '.gitignore'), '.loopguard/\n');
    const second = await workspace.snapshot();
    writeFileSync(join(dir, 'README.md'), '# project\nfixed\n');
    const changes = await workspace.changes(first, await workspace.snapshot());
    expect(changes.files.sort()).toEqual(['.gitignore', 'README.md']);
    expect((await workspace.changes(first, second)).files).toEqual(['.gitignore']);
  });
});
