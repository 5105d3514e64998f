import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findStateDatabase } from '../src/commands/findStateDatabase.js';
import { openHookDatabase } from '../src/hook/hookDatabase.js';
import { UNGUARDED_NOTICE } from '../src/hook/unguardedNotice.js';
import { openState } from '../src/run/stateStore.js';
import { ownStateFolder } from '../src/state/stateFolder.js';
import { claudeFailingCall, hookCall, hookLog, tempProject } from './hookHelpers.js';
import { bin, loopguard } from './runHelpers.js';

/** An unrelated SQLite database of the victim's: one table of their own. */
function victimDatabase(dir: string): string {
  const path = join(dir, 'victim.db');
  const db = new Database(path);
  db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
  db.close();
  return path;
}

const tablesOf = (path: string) => {
  const db = new Database(path, { readonly: true });
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
  db.close();
  return names;
};

/** The status line's words for a project whose `.loopguard` every door refuses (the hooks fail open). */
const NOT_GUARDED_LINE =
  'loopguard: not guarding this project (its .loopguard is refused; `loopguard status` says why)';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a planted .loopguard or state.db is refused (issue 38)', () => {
  it('the hook never migrates its tables into a database another user linked as state.db, and logs one line', async () => {
    const dir = tempProject();
    const elsewhere = tempProject();
    const victim = victimDatabase(elsewhere);
    mkdirSync(join(dir, '.loopguard'));
    symlinkSync(victim, join(dir, '.loopguard', 'state.db'));
    const reply = await hookCall(dir, 'claude', claudeFailingCall(dir, 's', 1).post);
    // the user is told, once a session (trust44); nothing else is answered
    expect(reply).toEqual({
      code: 0,
      stdout: JSON.stringify({ systemMessage: UNGUARDED_NOTICE }),
      stderr: '',
    });
    expect(tablesOf(victim)).toEqual(['notes']);
    expect(hookLog(dir)).toHaveLength(1);
    expect(hookLog(dir)[0]).toMatch(
      new RegExp(
        `failed open: refusing ${join(dir, '.loopguard', 'state.db')}: it is a symbolic link \\(to ${victim}\\)`,
      ),
    );
  });

  it('the hook writes nothing through a .loopguard that is a link, not even its log', async () => {
    const dir = tempProject();
    const elsewhere = tempProject();
    symlinkSync(elsewhere, join(dir, '.loopguard'));
    const reply = await hookCall(dir, 'claude', claudeFailingCall(dir, 's', 1).post);
    expect(reply).toEqual({ code: 0, stdout: expect.stringContaining('"systemMessage"'), stderr: '' });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('never appends through a hook.log that is a link (to a file of the victim, a shell profile)', async () => {
    const dir = tempProject();
    const elsewhere = tempProject();
    const profile = join(elsewhere, '.bashrc');
    writeFileSync(profile, 'export PATH=$PATH\n');
    mkdirSync(join(dir, '.loopguard'), { mode: 0o700 });
    symlinkSync(profile, join(dir, '.loopguard', 'hook.log'));
    // an event that fails open: its line would have gone into the profile
    const reply = await hookCall(dir, 'claude', {
      ...claudeFailingCall(dir, 's', 1).post,
      hook_event_name: '$(id)',
    });
    expect(reply).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(profile, 'utf8')).toBe('export PATH=$PATH\n');
  });

  it.each([
    ['state.db', '.loopguard/state.db'],
    ['the configuration', 'loopguard.config.yaml'],
  ])(
    'the fast path answers, failing open, when %s is a FIFO (it never waits for a writer)',
    async (_, file) => {
      const dir = tempProject();
      mkdirSync(join(dir, '.loopguard'), { mode: 0o700 });
      execFileSync('mkfifo', [join(dir, file)]);
      const args = { ...claudeFailingCall(dir, 's', 1).post, tool_input: '{"command":"cat missing.txt"}' };
      const message = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'hook', arguments: args },
      };
      // a server that waits on the FIFO never answers: ended here, it has written nothing
      const server = await execa(process.execPath, [bin, 'mcp'], {
        cwd: dir,
        input: `${JSON.stringify(message)}\n`,
        env: { CLAUDE_PROJECT_DIR: dir, LOOPGUARD_HOOK: '' },
        reject: false,
        timeout: 20_000,
      });
      expect(server.timedOut).toBe(false);
      const reply = JSON.parse(String(server.stdout).trim());
      // a refused state.db is told to the user (trust44); a FIFO configuration fails open in silence
      const text = file === 'loopguard.config.yaml' ? '' : expect.stringContaining('"systemMessage"');
      expect(reply).toMatchObject({ id: 1, result: { content: [{ type: 'text', text }] } });
      expect(hookLog(dir)).toHaveLength(1);
    },
    40_000,
  );

  it("refuses a .loopguard or a state.db of another user's, in the hook's open and in loopguard run's", () => {
    const dir = tempProject();
    openHookDatabase(dir, 1000).close();
    const uid = process.getuid?.() ?? 0;
    // the files stay this user's; this process takes itself for another user
    vi.spyOn(process, 'getuid').mockReturnValue(uid + 1);
    const folder = new RegExp(
      `^refusing ${join(dir, '.loopguard')}: it belongs to another user \\(uid ${uid}\\)`,
    );
    expect(() => openHookDatabase(dir, 1000)).toThrow(folder);
    expect(() => openState(dir, () => {}, 'write')).toThrow(folder);
    expect(() => openState(dir, () => {}, 'read')).toThrow(folder);
  });

  it('loopguard runs refuses a linked .loopguard in one line with exit 1', async () => {
    const dir = tempProject();
    const elsewhere = tempProject();
    symlinkSync(elsewhere, join(dir, '.loopguard'));
    const result = await loopguard(dir, ['runs']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `loopguard: refusing ${join(dir, '.loopguard')}: it is a symbolic link (to ${elsewhere}); loopguard keeps its state only in a folder of this user's (remove it)`,
    );
  });
});

describe("what the hook stores is this user's alone (issue 38)", () => {
  it('a command carrying a key ends in state.db, and no other local user can read .loopguard', async () => {
    const dir = tempProject();
    const command = 'cat missing-sk-live-0123456789abcdef.txt';
    for (let n = 1; n <= 3; n += 1)
      await hookCall(dir, 'claude', claudeFailingCall(dir, 's', n, command).post);
    expect(readFileSync(join(dir, '.loopguard', 'state.db')).includes('sk-live-0123456789abcdef')).toBe(true);
    expect(statSync(join(dir, '.loopguard')).mode & 0o777).toBe(0o700);
  });

  it("an existing .loopguard others could read is made this user's alone by the next writer", () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.loopguard'), { mode: 0o755 });
    chmodSync(join(dir, '.loopguard'), 0o755);
    openHookDatabase(dir, 1000).close();
    expect(statSync(join(dir, '.loopguard')).mode & 0o777).toBe(0o700);
  });

  // secrets64: `loopguard demo` makes `.loopguard/demo-files` (and so `.loopguard`) without the
  // folder's `.gitignore`; the hooks took such a folder without writing one, so the session's
  // state.db (a key in a command) was in `git status` and went out with `git add -A && git push`
  it.each([
    ['left by `loopguard demo` (0755, unmarked)', 0o755, false],
    ['marked by an earlier hook without one (0700)', 0o700, true],
  ])(
    'secrets64: a .loopguard without its .gitignore, %s, gets one from the next writer',
    async (_, mode, marked) => {
      const dir = tempProject();
      execFileSync('git', ['init', '-q'], { cwd: dir });
      mkdirSync(join(dir, '.loopguard', 'demo-files'), { recursive: true });
      chmodSync(join(dir, '.loopguard'), mode);
      if (marked) openHookDatabase(dir, 1000).close();
      rmSync(join(dir, '.loopguard', '.gitignore'), { force: true });
      await hookCall(
        dir,
        'claude',
        claudeFailingCall(dir, 's', 1, 'cat missing-sk-live-0123456789abcdef.txt').post,
      );
      expect(readFileSync(join(dir, '.loopguard', 'state.db')).includes('sk-live-0123456789abcdef')).toBe(
        true,
      );
      expect(String(execFileSync('git', ['status', '--porcelain', '-uall'], { cwd: dir }))).not.toContain(
        '.loopguard',
      );
    },
  );
});

describe('a planted database is never read without --db either', () => {
  it('status refuses, in one line with exit 1, a linked state.db found by the search upwards', async () => {
    const dir = tempProject();
    const elsewhere = tempProject();
    const victim = victimDatabase(elsewhere);
    mkdirSync(join(dir, '.loopguard'));
    symlinkSync(victim, join(dir, '.loopguard', 'state.db'));
    const below = join(dir, 'src');
    mkdirSync(below);
    const result = await loopguard(below, ['status']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `loopguard: refusing ${join(dir, '.loopguard', 'state.db')}: it is a symbolic link (to ${victim}); loopguard keeps its state only in a folder of this user's (remove it)`,
    );
  });

  it('the status line and status refuse a state.db that is not a regular file (a FIFO never answers)', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.loopguard'), { mode: 0o700 });
    execFileSync('mkfifo', [join(dir, '.loopguard', 'state.db')]);
    const statusLine = await execa(process.execPath, [bin, 'statusline'], {
      cwd: dir,
      input: JSON.stringify({ session_id: 's', cwd: dir }),
      reject: false,
      timeout: 20_000,
    });
    expect(statusLine.timedOut).toBe(false);
    expect(String(statusLine.stdout)).toBe(NOT_GUARDED_LINE);
    expect(() => findStateDatabase({ cwd: dir, env: {} })).toThrow(
      `refusing ${join(dir, '.loopguard', 'state.db')}: it is a FIFO, socket or device, not a regular file`,
    );
  }, 40_000);

  it("status refuses a .loopguard of another user's above the working directory", () => {
    const dir = tempProject();
    openHookDatabase(dir, 1000).close();
    const uid = process.getuid?.() ?? 0;
    vi.spyOn(process, 'getuid').mockReturnValue(uid + 1);
    expect(() => findStateDatabase({ cwd: join(dir, 'src'), env: {} })).toThrow(
      new RegExp(`^refusing ${join(dir, '.loopguard')}: it belongs to another user \\(uid ${uid}\\)`),
    );
  });

  it('finds the nearest database of this user, else the one in the home folder', () => {
    const dir = tempProject();
    const home = tempProject();
    openHookDatabase(home, 1000).close();
    expect(findStateDatabase({ cwd: dir, env: { HOME: home } })).toBe(join(home, '.loopguard', 'state.db'));
    openHookDatabase(dir, 1000).close();
    expect(findStateDatabase({ cwd: join(dir, 'a', 'b'), env: { HOME: home } })).toBe(
      join(dir, '.loopguard', 'state.db'),
    );
  });
});

describe('a nested project is its own (sessions60)', () => {
  it("status in a nested repository with its own config and no session says so, never the parent's sessions", async () => {
    const parent = tempProject();
    openHookDatabase(parent, 1000).close();
    for (const nested of ['with-config', 'repository']) {
      const dir = join(parent, nested);
      mkdirSync(dir);
      if (nested === 'with-config')
        writeFileSync(join(dir, 'loopguard.config.json'), '{"hook":{"stopAfter":5}}');
      else mkdirSync(join(dir, '.git'));
      expect(findStateDatabase({ cwd: dir, env: {} })).toBeUndefined();
      const result = await loopguard(dir, ['status']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(`^loopguard: no loopguard database in ${dir}: no session guarded in this project yet \\(`),
      );
    }
    // a folder below a project, neither a repository nor configured, is the project's
    mkdirSync(join(parent, 'src'));
    expect(findStateDatabase({ cwd: join(parent, 'src'), env: {} })).toBe(
      join(parent, '.loopguard', 'state.db'),
    );
  });
});

describe('.loopguard/ carries its own .gitignore (issue 35)', () => {
  it("made by the hook's first database open: git status shows nothing of it", async () => {
    const dir = tempProject();
    execFileSync('git', ['init', '-q'], { cwd: dir });
    expect((await hookCall(dir, 'claude', claudeFailingCall(dir, 's', 1).post)).code).toBe(0);
    expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(true);
    expect(readFileSync(join(dir, '.loopguard', '.gitignore'), 'utf8')).toContain('\n*\n');
    expect(
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: dir, encoding: 'utf8' }),
    ).toBe('');
  });

  it("made by loopguard run's state too, and added to a folder that has none (secrets64)", () => {
    const dir = tempProject();
    openState(dir, () => {}, 'write')?.db.close();
    expect(existsSync(join(dir, '.loopguard', '.gitignore'))).toBe(true);
    const older = tempProject();
    mkdirSync(join(older, '.loopguard'));
    openHookDatabase(older, 1000).close();
    expect(readFileSync(join(older, '.loopguard', '.gitignore'), 'utf8')).toContain('\n*\n');
    // a reader writes nothing
    const read = tempProject();
    mkdirSync(join(read, '.loopguard'), { mode: 0o700 });
    ownStateFolder(read, false);
    expect(existsSync(join(read, '.loopguard', '.gitignore'))).toBe(false);
  });
});

describe("a repository's own .loopguard, tracked by git (trust41)", () => {
  /** A repository that ships `.loopguard/state.db` (`git add -f`), cloned by the victim (umask 022). */
  async function clonedRepositoryWithState(mode = 0o755): Promise<string> {
    const origin = tempProject();
    execFileSync('git', ['init', '-q'], { cwd: origin });
    await hookCall(origin, 'claude', claudeFailingCall(origin, 'planter', 1).post);
    execFileSync('git', ['add', '-f', '.loopguard/state.db'], { cwd: origin });
    execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'state'], {
      cwd: origin,
    });
    const clone = join(tempProject(), 'clone');
    execFileSync('git', ['clone', '-q', origin, clone]);
    chmodSync(join(clone, '.loopguard'), mode); // as git makes it under the common umask (022)
    return clone;
  }

  it('writes nothing into it: the next commit would carry the sessions’ commands and results', async () => {
    const clone = await clonedRepositoryWithState();
    for (let n = 1; n <= 4; n++) {
      const call = claudeFailingCall(clone, 'victim', n, `curl -H "Authorization: Bearer sk-secret-${n}" x`);
      expect((await hookCall(clone, 'claude', call.pre)).code).toBe(0);
      expect((await hookCall(clone, 'claude', call.post)).code).toBe(0);
    }
    // on main: ` M .loopguard/state.db`, and `git commit -a` took the commands with their keys
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' })).toBe('');
    const status = await loopguard(clone, ['status']);
    expect(status.code).toBe(1); // as for a linked state.db
    expect(status.stderr).toContain('git tracks');
  });

  it('trust45: under umask 077 (git makes the folder 0700, as loopguard does) it is refused all the same', async () => {
    const clone = await clonedRepositoryWithState(0o700);
    for (let n = 1; n <= 2; n++) {
      const call = claudeFailingCall(clone, 'victim', n, `curl -H "Authorization: Bearer sk-secret-${n}" x`);
      expect((await hookCall(clone, 'claude', call.pre)).code).toBe(0);
      expect((await hookCall(clone, 'claude', call.post)).code).toBe(0);
    }
    // on main: ` M .loopguard/state.db`: the mode alone was taken for loopguard's own folder
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' })).toBe('');
    expect((await loopguard(clone, ['status'])).stderr).toContain('git tracks');
    // a folder loopguard made, 0700 and untracked, is asked about once, then known by its mark
    const own = tempProject();
    execFileSync('git', ['init', '-q'], { cwd: own });
    await hookCall(own, 'claude', claudeFailingCall(own, 'mine', 1).post);
    expect(
      readdirSync(join(own, '.loopguard')).filter((name) => name.startsWith('.untracked-')),
    ).toHaveLength(1);
    expect((await loopguard(own, ['status'])).code).toBe(0);
  });

  it('qa50: a project copied (`cp -a`) or moved to another disk keeps one mark, its new folder’s, not one a copy', () => {
    const marks = (project: string) =>
      readdirSync(join(project, '.loopguard')).filter((name) => name.startsWith('.untracked-'));
    const original = tempProject();
    openHookDatabase(original, 1000).close();
    let project = original;
    for (let copy = 1; copy <= 3; copy++) {
      const next = join(tempProject(), 'copy');
      execFileSync('cp', ['-a', project, next]);
      openHookDatabase(next, 1000).close();
      const { dev, ino } = lstatSync(join(next, '.loopguard'));
      // on main: the marks of every folder it was copied from stay, one more a copy
      expect(marks(next)).toEqual([`.untracked-${dev}-${ino}`]);
      project = next;
    }
    expect(marks(original)).toHaveLength(1);
  });

  it("the fix the refusal names leaves none of the repository's database in use, its triggers none (qa42)", async () => {
    const clone = await clonedRepositoryWithState();
    // the shipped database switches every session off as the hook records it
    const shipped = new Database(join(clone, '.loopguard', 'state.db'));
    shipped.exec(
      'CREATE TRIGGER planted AFTER INSERT ON hook_sessions BEGIN UPDATE hook_sessions SET enabled = 0 WHERE session_id = NEW.session_id; END',
    );
    shipped.close();
    const refused = await loopguard(clone, ['status']);
    // the user runs what the one line says, as it says it (on c73467c+trust41: `git rm -r --cached
    // .loopguard` alone, which kept the shipped database, trigger and all)
    const fix = /\((git rm [^()]*)\)/.exec(refused.stderr)?.[1];
    expect(fix, refused.stderr).toBe('git rm -r --cached .loopguard && rm -rf .loopguard');
    execFileSync('sh', ['-c', fix as string], { cwd: clone });
    const replies: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const call = claudeFailingCall(clone, 'victim', n);
      await hookCall(clone, 'claude', call.pre);
      replies.push((await hookCall(clone, 'claude', call.post)).stdout);
    }
    expect(replies.at(-1)).toContain('"continue":false');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' })).toBe(
      'D  .loopguard/state.db\n',
    );
  });

  it('the status line says the project is not guarded, and where to read why (qa42)', async () => {
    const clone = await clonedRepositoryWithState();
    const statusLine = await execa(process.execPath, [bin, 'statusline'], {
      cwd: clone,
      input: JSON.stringify({ session_id: 'victim', cwd: clone }),
      reject: false,
    });
    // on c73467c+trust41: `loopguard: status unavailable`, while every hook call failed open unseen
    expect(String(statusLine.stdout)).toBe(NOT_GUARDED_LINE);
  });

  it("asks git without running the repository's own programs (core.fsmonitor)", async () => {
    const clone = await clonedRepositoryWithState();
    const ran = join(tempProject(), 'ran');
    execFileSync('git', ['config', 'core.fsmonitor', `touch ${ran}; false`], { cwd: clone });
    await hookCall(clone, 'claude', claudeFailingCall(clone, 'victim', 1).pre);
    expect(existsSync(ran)).toBe(false);
    expect(
      execFileSync('git', ['-c', 'core.fsmonitor=false', 'status', '--porcelain'], {
        cwd: clone,
        encoding: 'utf8',
      }),
    ).toBe('');
  });

  it('keeps using a folder git does not track, made by an older loopguard (0755)', async () => {
    const dir = tempProject();
    execFileSync('git', ['init', '-q'], { cwd: dir });
    mkdirSync(join(dir, '.loopguard'), { mode: 0o755 });
    chmodSync(join(dir, '.loopguard'), 0o755);
    expect((await hookCall(dir, 'claude', claudeFailingCall(dir, 's', 1).post)).code).toBe(0);
    expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(true);
    expect(statSync(join(dir, '.loopguard')).mode & 0o777).toBe(0o700);
  });
});
