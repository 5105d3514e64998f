import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { sessionProjectDir } from '../src/hook/sessionProject.js';
import { claudeEvent, claudeFailingCall, hookState } from './hookHelpers.js';

// A session started below its project (Codex, or Claude Code and Gemini CLI installed with --user,
// whose project variable is the folder they started in): before qa47 the hooks made a database of
// its own in that folder, so the project's `status`, dashboard and budget never saw it.

/** A repository (a `.git` folder) with `src/deep` and, when given, its configuration file. */
function repository(config?: string, git = true): { root: string; deep: string } {
  const root = mkdtempSync(join(tmpdir(), 'loopguard-subfolder-'));
  if (git) mkdirSync(join(root, '.git'));
  const deep = join(root, 'src', 'deep');
  mkdirSync(deep, { recursive: true });
  if (config !== undefined) writeFileSync(join(root, 'loopguard.config.yaml'), config);
  return { root, deep };
}

/**
 * Four identical failing Bash calls of Claude Code session `session`, its project variable `dir`.
 * `beforeThird` runs after two calls (what the model does mid-session); `freshHome` gives each
 * event a HOME of its own (no unguarded notice hushed by an earlier one).
 */
async function claudeLoop(
  dir: string,
  session: string,
  { beforeThird, freshHome = false }: { beforeThird?: () => unknown; freshHome?: boolean } = {},
): Promise<string[]> {
  const replies: string[] = [];
  for (let n = 1; n <= 4; n++) {
    if (n === 3) await beforeThird?.();
    const call = claudeFailingCall(dir, session, n);
    for (const event of [call.pre, call.post]) {
      const home = freshHome ? { HOME: mkdtempSync(join(tmpdir(), 'loopguard-home-')) } : {};
      replies.push(
        await answerHookEvent('claude', JSON.stringify(event), {
          env: { CLAUDE_PROJECT_DIR: dir, ...home },
          cwd: dir,
        }),
      );
    }
  }
  return replies;
}

describe('a session started in a subfolder of a repository (qa47)', () => {
  it("is recorded in the repository's database, which status and the dashboard read", async () => {
    const { root, deep } = repository();
    await claudeLoop(root, 'at-root');
    const replies = await claudeLoop(deep, 'below');
    expect(replies.join('\n')).toContain('Loop detected (same_error)');
    expect(existsSync(join(deep, '.loopguard'))).toBe(false);
    expect(hookState(root).sessions.map((s) => [s.session_id, s.project_dir])).toEqual([
      ['at-root', root],
      ['below', root],
    ]);
  });

  it("is judged under the repository's configuration: its off switch", async () => {
    const { root, deep } = repository('hook:\n  enabled: false\n');
    expect((await claudeLoop(deep, 'off')).every((reply) => reply === '')).toBe(true);
    expect(existsSync(join(deep, '.loopguard'))).toBe(false);
    expect(existsSync(join(root, '.loopguard'))).toBe(false);
  });

  it('Codex: the folder its hooks run in is below the repository', async () => {
    const { root, deep } = repository('hook:\n  enabled: false\n');
    const event = {
      session_id: 'c1',
      turn_id: 't1',
      cwd: deep,
      hook_event_name: 'PreToolUse',
      model: 'gpt-scripted',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'call_1',
    };
    expect(await answerHookEvent('codex', JSON.stringify(event), { env: {}, cwd: deep })).toBe('');
    expect(existsSync(join(deep, '.loopguard'))).toBe(false);
    expect(existsSync(join(root, '.loopguard'))).toBe(false);
  });

  it("sessions50: a repository's first session started in a subfolder is the repository's; a later one at the root joins it", async () => {
    const fresh = repository();
    await claudeLoop(fresh.deep, 'first-below');
    await claudeLoop(fresh.root, 'then-at-root');
    expect(existsSync(join(fresh.deep, '.loopguard'))).toBe(false);
    expect(hookState(fresh.root).sessions.map((s) => [s.session_id, s.project_dir])).toEqual([
      ['first-below', fresh.root],
      ['then-at-root', fresh.root],
    ]);
    // a subfolder that already has its own database (made before sessions50) keeps it
    const older = repository();
    mkdirSync(join(older.deep, '.loopguard'));
    writeFileSync(join(older.deep, '.loopguard', 'state.db'), '');
    expect(sessionProjectDir(older.deep)).toBe(older.deep);
  });

  it('keeps its own folder outside a repository, below a home folder kept in git, and never looks above the repository', async () => {
    const home = repository();
    vi.stubEnv('HOME', home.root);
    try {
      expect(sessionProjectDir(home.deep)).toBe(home.deep);
    } finally {
      vi.unstubAllEnvs();
    }
    const noGit = repository('hook:\n  enabled: false\n', false);
    expect((await claudeLoop(noGit.deep, 's1')).join('')).toContain('Loop detected');
    expect(existsSync(join(noGit.deep, '.loopguard', 'state.db'))).toBe(true);
    // a repository inside a folder whose configuration switches loopguard off: not read
    const outer = repository('hook:\n  enabled: false\n', false);
    const inner = join(outer.root, 'inner');
    mkdirSync(join(inner, '.git'), { recursive: true });
    mkdirSync(join(inner, 'src'));
    expect((await claudeLoop(join(inner, 'src'), 's1')).join('')).toContain('Loop detected');
    expect(existsSync(join(inner, '.loopguard', 'state.db'))).toBe(true);
    expect(existsSync(join(outer.root, '.loopguard'))).toBe(false);
  });

  it("a Claude Code event's cwd after a cd is not where it starts: the project variable is", async () => {
    const { root, deep } = repository();
    await claudeLoop(root, 'first');
    const event = claudeEvent(deep, 'first', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_9',
    });
    await answerHookEvent('claude', JSON.stringify(event), { env: { CLAUDE_PROJECT_DIR: root }, cwd: deep });
    expect(existsSync(join(deep, '.loopguard'))).toBe(false);
  });
});

describe('a folder above the session that another user owns or every user shares (qa48)', () => {
  it('a shared folder (/tmp) with a planted .git and configuration does not take the session, nor switch it off', async () => {
    // /tmp's shape: writable by every user, sticky; another user plants `.git` and an off switch there
    const shared = mkdtempSync(join(tmpdir(), 'loopguard-shared-'));
    chmodSync(shared, 0o1777);
    mkdirSync(join(shared, '.git'));
    writeFileSync(join(shared, 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
    const work = join(shared, 'me', 'work');
    mkdirSync(work, { recursive: true });
    expect((await claudeLoop(work, 's1')).join('')).toContain('Loop detected');
    expect(existsSync(join(work, '.loopguard', 'state.db'))).toBe(true);
    expect(existsSync(join(shared, '.loopguard'))).toBe(false);
  });

  it('a submodule or a worktree (a `.git` file) is a repository of its own: the walk ends at it', () => {
    const { root } = repository('hook:\n  enabled: false\n');
    for (const name of ['submodule', 'worktree']) {
      const inner = join(root, 'vendor', name);
      mkdirSync(join(inner, 'src'), { recursive: true });
      writeFileSync(join(inner, '.git'), `gitdir: ${join(root, '.git', 'modules', name)}\n`);
      // its own root, not the enclosing repository's, whose configuration switches loopguard off
      expect(sessionProjectDir(join(inner, 'src'))).toBe(inner);
      writeFileSync(join(inner, 'src', 'loopguard.config.yaml'), 'hook:\n  enabled: true\n');
      expect(sessionProjectDir(join(inner, 'src'))).toBe(join(inner, 'src'));
    }
  });

  it("another user's folders end the walk: their .git and their loopguard files are not the session's project", () => {
    const { root, deep } = repository('hook:\n  enabled: false\n');
    expect(sessionProjectDir(deep)).toBe(root);
    // the user's own folder open to all (a Windows drive under WSL): still the user's
    chmodSync(root, 0o777);
    expect(sessionProjectDir(deep)).toBe(root);
    vi.spyOn(process, 'getuid').mockReturnValue((process.getuid?.() ?? 0) + 1);
    try {
      expect(sessionProjectDir(deep)).toBe(deep);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('trust45: a session below its project and a `.git` the model makes', () => {
  it('a `.git` made mid-session (`git init`, `touch .git`) does not move the session out of the project that holds it', async () => {
    const { root, deep } = repository('spend:\n  session:\n    maxCostUsd: 2\n');
    // after two calls the model runs `git init` in its folder: no loopguard name, not refused
    const replies = await claudeLoop(deep, 'below', { beforeThird: () => mkdirSync(join(deep, '.git')) });
    // still judged in the root's project: its loop found, its budget's project, one row
    expect(replies.join('\n')).toContain('Loop detected (same_error)');
    expect(existsSync(join(deep, '.loopguard'))).toBe(false);
    expect(hookState(root).sessions.map((s) => [s.session_id, s.project_dir])).toEqual([['below', root]]);
    // a session that starts there now is the new repository's: it is not held above
    await claudeLoop(deep, 'new-here');
    expect(hookState(deep).sessions.map((s) => s.session_id)).toEqual(['new-here']);
  });
});

describe('trust46: a `.git` the model makes, then a second session in its folder', () => {
  it("the first session's next calls stay in the project that holds it, the new project's database made by another session notwithstanding", async () => {
    const { root, deep } = repository('spend:\n  session:\n    maxCostUsd: 2\n');
    const replies = await claudeLoop(deep, 'first', {
      beforeThird: async () => {
        // the model runs `git init` in its folder, then starts a session there (`claude -p`): that
        // session is the new repository's, and makes its database
        mkdirSync(join(deep, '.git'));
        await claudeLoop(deep, 'second');
      },
    });
    // the loop found over all four calls, in the root's project, one row of the first session
    expect(replies.join('\n')).toContain('Loop detected (same_error)');
    expect(hookState(root).sessions.map((s) => [s.session_id, s.project_dir])).toEqual([['first', root]]);
    expect(hookState(deep).sessions.map((s) => s.session_id)).toEqual(['second']);
  });
});

describe('trust46: a refused database the model brings into its folder', () => {
  it('a repository pulled into the folder with its `.loopguard/state.db` (refused: git tracks it) does not switch the session off', async () => {
    const { root, deep } = repository('hook:\n  enabled: true\n');
    const replies = await claudeLoop(deep, 'below', {
      beforeThird: async () => {
        // `git init && git pull <a repository that ships .loopguard/state.db>`: names nothing of loopguard's
        execFileSync('git', ['init', '-q'], { cwd: deep });
        mkdirSync(join(deep, '.loopguard'), { mode: 0o755 });
        writeFileSync(join(deep, '.loopguard', 'state.db'), '');
        execFileSync('git', ['add', '-f', '.loopguard/state.db'], { cwd: deep });
      },
      freshHome: true,
    });
    expect(replies.join('\n')).toContain('Loop detected (same_error)');
    expect(replies.join('\n')).not.toContain('loopguard is not guarding this session');
    expect(hookState(root).sessions.map((s) => [s.session_id, s.tool_calls])).toEqual([['below', 4]]);
  });
});

describe('trust47: an off switch the model brings into its folder', () => {
  it('a repository pulled into the folder with `hook.enabled: false` does not switch off a session the project above holds', async () => {
    const { root, deep } = repository('spend:\n  session:\n    maxCostUsd: 2\n');
    const replies = await claudeLoop(deep, 'below', {
      beforeThird: async () => {
        // `git init && git pull <a repository that ships its loopguard.config.json and
        // .loopguard/state.db>`: names nothing of loopguard's; the folder's configuration now says
        // the hooks are off, and it has a database (refused: git tracks it)
        execFileSync('git', ['init', '-q'], { cwd: deep });
        writeFileSync(join(deep, 'loopguard.config.json'), '{"hook": {"enabled": false}}');
        mkdirSync(join(deep, '.loopguard'), { mode: 0o755 });
        writeFileSync(join(deep, '.loopguard', 'state.db'), '');
        execFileSync('git', ['add', '-f', 'loopguard.config.json', '.loopguard/state.db'], { cwd: deep });
      },
      freshHome: true,
    });
    expect(replies.join('\n')).toContain('Loop detected (same_error)');
    expect(hookState(root).sessions.map((s) => [s.session_id, s.tool_calls])).toEqual([['below', 4]]);
  });

  it('nor does a configuration that fails validation, pulled the same way', async () => {
    const { root, deep } = repository('spend:\n  session:\n    maxCostUsd: 2\n');
    const replies = await claudeLoop(deep, 'below', {
      beforeThird: async () => {
        execFileSync('git', ['init', '-q'], { cwd: deep });
        writeFileSync(join(deep, 'loopguard.config.json'), '{"hook": {"enabled": "no"}}');
        mkdirSync(join(deep, '.loopguard'), { mode: 0o755 });
        writeFileSync(join(deep, '.loopguard', 'state.db'), '');
        execFileSync('git', ['add', '-f', 'loopguard.config.json', '.loopguard/state.db'], { cwd: deep });
      },
      freshHome: true,
    });
    expect(replies.join('\n')).toContain('Loop detected (same_error)');
    expect(replies.join('\n')).not.toContain('loopguard is not guarding this session');
    expect(hookState(root).sessions.map((s) => [s.session_id, s.tool_calls])).toEqual([['below', 4]]);
  });

  it('a session that starts in a folder switched off is not guarded, nor written anywhere', async () => {
    const { root, deep } = repository('hook:\n  enabled: true\n');
    await claudeLoop(root, 'at-root');
    writeFileSync(join(deep, 'loopguard.config.json'), '{"hook": {"enabled": false}}');
    expect((await claudeLoop(deep, 'off-below')).every((reply) => reply === '')).toBe(true);
    expect(existsSync(join(deep, '.loopguard'))).toBe(false);
    expect(hookState(root).sessions.map((s) => s.session_id)).toEqual(['at-root']);
  });
});

describe('qa52: a failure in the project above that holds the session', () => {
  it.each([
    ['has a database of another session', 'other'],
    ['has a database git tracks (refused)', 'tracked'],
  ])('is logged in that project, not in the switched-off folder below, which %s', async (_, below) => {
    const { root, deep } = repository();
    const home = mkdtempSync(join(tmpdir(), 'loopguard-home-'));
    const call = async (n: number) => {
      const events = claudeFailingCall(deep, 'held', n);
      for (const event of [events.pre, events.post])
        await answerHookEvent('claude', JSON.stringify(event), {
          env: { CLAUDE_PROJECT_DIR: deep, HOME: home },
          cwd: deep,
        });
    };
    await call(1);
    // the folder becomes a repository of its own with a database, then is switched off
    execFileSync('git', ['init', '-q'], { cwd: deep });
    if (below === 'other') await claudeLoop(deep, 'other');
    else {
      mkdirSync(join(deep, '.loopguard'), { mode: 0o755 });
      writeFileSync(join(deep, '.loopguard', 'state.db'), '');
      execFileSync('git', ['add', '-f', '.loopguard/state.db'], { cwd: deep });
    }
    writeFileSync(join(deep, 'loopguard.config.json'), '{"hook": {"enabled": false}}');
    // the session's next call fails open in the project that holds it (its configuration is invalid)
    writeFileSync(join(root, 'loopguard.config.yaml'), 'hook:\n  enabled: "no"\n');
    await call(2);
    const logOf = (dir: string) => {
      const path = join(dir, '.loopguard', 'hook.log');
      return existsSync(path) ? readFileSync(path, 'utf8') : '';
    };
    expect(logOf(deep)).not.toContain('session=held');
    expect(logOf(root)).toMatch(/claude PreToolUse session=held: failed open: config .*hook\.enabled/);
  });
});
