import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandEntries, installHooks, removeHooks } from '../src/install/hookSettings.js';
import { lineDiff } from '../src/install/lineDiff.js';
import { readSettingsText, settingsFileText } from '../src/install/settingsText.js';
import { tempProject } from './hookHelpers.js';
import { loopguard } from './runHelpers.js';

const EXISTING = {
  model: 'opus',
  env: { FOO: '1' },
  permissions: { allow: ['Bash(ls)'], deny: [] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre', timeout: 5 }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }],
    SessionEnd: [],
  },
  statusLine: { type: 'command', command: 'echo status' },
};

function settingsFile(dir: string, agent: 'claude' | 'gemini') {
  return join(dir, agent === 'claude' ? '.claude' : '.gemini', 'settings.json');
}

function writeSettings(dir: string, agent: 'claude' | 'gemini', value: unknown) {
  mkdirSync(join(dir, agent === 'claude' ? '.claude' : '.gemini'), { recursive: true });
  writeFileSync(settingsFile(dir, agent), JSON.stringify(value));
}

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('loopguard init', () => {
  it.each(['claude', 'gemini'] as const)(
    '%s: merges its hooks, keeps every other key and hook, backs up, and --remove restores the file',
    async (agent) => {
      const dir = tempProject();
      writeSettings(dir, agent, EXISTING);
      const installed = await loopguard(dir, ['init', agent, '--project']);
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toMatch(/loopguard guards (Claude Code|Gemini CLI) on /);
      const settings = read(settingsFile(dir, agent));
      expect(settings).toMatchObject({
        model: 'opus',
        env: { FOO: '1' },
        permissions: EXISTING.permissions,
        statusLine: EXISTING.statusLine,
      });
      expect(settings.hooks.PreToolUse[0]).toEqual(EXISTING.hooks.PreToolUse[0]);
      expect(settings.hooks.Notification).toEqual(EXISTING.hooks.Notification);
      const events =
        agent === 'claude'
          ? ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop']
          : ['BeforeTool', 'AfterTool', 'AfterAgent'];
      for (const event of events) {
        const ours = (settings.hooks[event] as Array<{ hooks: Array<Record<string, unknown>> }>)
          .flatMap((g) => g.hooks)
          .filter((h) => h.loopguard !== undefined);
        expect(ours, event).toHaveLength(1);
      }
      const backups = readdirSync(join(settingsFile(dir, agent), '..')).filter((f) =>
        f.includes('loopguard-backup'),
      );
      expect(backups).toHaveLength(1);
      expect(read(join(settingsFile(dir, agent), '..', backups[0] as string))).toEqual(EXISTING);

      const again = await loopguard(dir, ['init', agent]);
      expect(again.stdout).toContain('loopguard hooks already installed');
      expect(read(settingsFile(dir, agent))).toEqual(settings);

      const removed = await loopguard(dir, ['init', agent, '--remove']);
      expect(removed.code, removed.stderr).toBe(0);
      expect(readFileSync(settingsFile(dir, agent), 'utf8')).toBe(JSON.stringify(EXISTING));
      expect((await loopguard(dir, ['init', agent, '--remove'])).stdout).toContain(
        'no loopguard hooks to remove',
      );
    },
  );

  it('--dry-run prints the diff and writes nothing', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.claude'));
    writeFileSync(settingsFile(dir, 'claude'), '{\n  "model": "opus"\n}\n');
    const before = readFileSync(settingsFile(dir, 'claude'), 'utf8');
    const result = await loopguard(dir, ['init', 'claude', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^--- \.claude\/settings\.json\n\+\+\+ \.claude\/settings\.json\n@@ /);
    expect(result.stdout).toContain('+    "PostToolUseFailure": [');
    expect(result.stdout).toContain('-  "model": "opus"\n+  "model": "opus",\n+  "hooks": {\n');
    expect(readFileSync(settingsFile(dir, 'claude'), 'utf8')).toBe(before);
    expect(readdirSync(join(dir, '.claude'))).toEqual(['settings.json']);
  });

  it('--user writes under the home directory; a missing file is created without a backup', async () => {
    const dir = tempProject();
    const home = tempProject();
    const result = await loopguard(dir, ['init', 'gemini', '--user', '--command', 'loopguard'], {
      HOME: home,
    });
    expect(result.code, result.stderr).toBe(0);
    const settings = read(join(home, '.gemini', 'settings.json'));
    expect(settings.hooks.AfterTool).toEqual([
      {
        matcher: '.*',
        hooks: [
          {
            type: 'command',
            command: 'loopguard hook gemini',
            name: 'loopguard',
            timeout: 10_000,
            loopguard: { owns: 'folder' },
          },
        ],
      },
    ]);
    expect(readdirSync(join(home, '.gemini'))).toEqual(['settings.json']);
    expect(existsSync(join(dir, '.gemini'))).toBe(false);
  });

  it('refuses a settings file that is not JSON, an unknown agent, and a bad hook configuration, writing nothing', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.claude'));
    writeFileSync(settingsFile(dir, 'claude'), '{ "model": ');
    const bad = await loopguard(dir, ['init', 'claude']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^loopguard: \.claude\/settings\.json is not valid JSON .*; nothing written$/);
    expect(readFileSync(settingsFile(dir, 'claude'), 'utf8')).toBe('{ "model": ');
    expect((await loopguard(dir, ['init', 'cursor'])).stderr).toContain(
      'agent must be claude, gemini or codex',
    );
    const other = tempProject();
    writeFileSync(join(other, 'loopguard.config.json'), JSON.stringify({ hook: { stopAfter: 0 } }));
    const config = await loopguard(other, ['init', 'claude']);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('stopAfter');
    expect(existsSync(join(other, '.claude'))).toBe(false);
  });

  it('--status-line for Gemini CLI or Codex, which run no status line of loopguard, is one line with exit 2, writing nothing (qa70: it was ignored)', async () => {
    for (const [agent, name] of [
      ['gemini', 'Gemini CLI'],
      ['codex', 'Codex'],
    ] as const) {
      const dir = tempProject();
      const result = await loopguard(dir, ['init', agent, '--status-line']);
      expect(result.code, agent).toBe(2);
      expect(result.stderr).toBe(
        `loopguard: --status-line is for Claude Code only (its statusLine setting runs loopguard statusline): ${name} runs no status line of loopguard; loopguard status says what loopguard did to each of its sessions`,
      );
      expect(readdirSync(dir), 'nothing written').toEqual([]);
    }
  });

  it('an empty or blank --command is one line with exit 2, writing nothing (qa70: it wrote " hook codex")', async () => {
    for (const agent of ['claude', 'gemini', 'codex']) {
      for (const command of ['', '   ']) {
        const dir = tempProject();
        const result = await loopguard(dir, ['init', agent, '--command-hooks', '--command', command]);
        expect(result.code, `${agent} ${JSON.stringify(command)}`).toBe(2);
        expect(result.stderr).toBe(
          `loopguard: --command is empty (got ${JSON.stringify(command)}): give the command that runs loopguard (--command loopguard), or leave --command out for this loopguard`,
        );
        expect(readdirSync(dir), 'nothing written').toEqual([]);
      }
    }
  });
});

/** Writes `text` as `agent`'s project settings file of a new project; returns the project. */
function projectWith(agent: 'claude' | 'gemini', text: string): string {
  const dir = tempProject();
  mkdirSync(join(dir, agent === 'claude' ? '.claude' : '.gemini'));
  writeFileSync(settingsFile(dir, agent), text);
  return dir;
}

/** The files of a project's settings directory. */
const settingsDir = (dir: string, agent: 'claude' | 'gemini') =>
  readdirSync(join(dir, agent === 'claude' ? '.claude' : '.gemini')).sort();

const OTHER_TOOL = JSON.stringify({
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ command: 'node /opt/othertool/bin.js hook claude' }] }],
  },
});

describe('loopguard init never damages what it does not own (issue 26)', () => {
  it("keeps another tool's hook whose command looks like loopguard's, through init and --remove", async () => {
    const dir = projectWith('claude', OTHER_TOOL);
    expect((await loopguard(dir, ['init', 'claude'])).code).toBe(0);
    const installed = read(settingsFile(dir, 'claude'));
    expect(installed.hooks.PreToolUse[0]).toEqual(JSON.parse(OTHER_TOOL).hooks.PreToolUse[0]);
    expect(installed.hooks.PreToolUse).toHaveLength(2);
    expect(installed.hooks.PreToolUse[1].hooks[0].loopguard).toEqual({ owns: 'entry' });
    const removed = await loopguard(dir, ['init', 'claude', '--remove']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(settingsFile(dir, 'claude'), 'utf8')).toBe(OTHER_TOOL);
    // a file holding only the other tool's hook has nothing of loopguard's to remove
    const untouched = projectWith('claude', OTHER_TOOL);
    const none = await loopguard(untouched, ['init', 'claude', '--remove']);
    expect(none.stdout).toContain('no loopguard hooks to remove');
    expect(settingsDir(untouched, 'claude')).toEqual(['settings.json']);
  });

  it('--command keeps init idempotent, and --remove --command removes the entries', async () => {
    const dir = projectWith('claude', '{}');
    const command = ['--command-hooks', '--command', 'npx -y @loopguard/cli'];
    expect((await loopguard(dir, ['init', 'claude', ...command])).code).toBe(0);
    const once = readFileSync(settingsFile(dir, 'claude'), 'utf8');
    const again = await loopguard(dir, ['init', 'claude', ...command]);
    expect(again.stdout).toContain('loopguard hooks already installed');
    expect(readFileSync(settingsFile(dir, 'claude'), 'utf8')).toBe(once);
    expect(once.match(/npx -y @loopguard\/cli hook claude/g)).toHaveLength(6);
    // another command replaces the entries in place of adding more
    expect((await loopguard(dir, ['init', 'claude', '--command-hooks', '--command', 'loopguard'])).code).toBe(
      0,
    );
    const replaced = readFileSync(settingsFile(dir, 'claude'), 'utf8');
    expect(replaced).not.toContain('npx');
    expect(replaced.match(/"loopguard hook claude"/g)).toHaveLength(6);
    const removed = await loopguard(dir, ['init', 'claude', '--remove', ...command]);
    expect(removed.stdout).toContain("removed loopguard's Claude Code hooks");
    expect(readFileSync(settingsFile(dir, 'claude'), 'utf8')).toBe('{}');
  });

  it('--user where the CLI reads a folder relative to where it starts is an error, and writes no file anywhere', async () => {
    const refusals: [string, Record<string, string>, RegExp][] = [
      ['claude', { HOME: 'relative/home' }, /HOME is not an absolute path \("relative\/home"\)/],
      // Claude Code then reads ./settings.json; Gemini CLI ./.gemini (Node's empty home)
      ['claude', { CLAUDE_CONFIG_DIR: '' }, /CLAUDE_CONFIG_DIR is empty/],
      ['claude', { CLAUDE_CONFIG_DIR: '  ' }, /CLAUDE_CONFIG_DIR is not an absolute path \(" {2}"\)/],
      ['gemini', { HOME: '' }, /HOME is empty/],
      ['gemini', { GEMINI_CLI_HOME: '~/g' }, /GEMINI_CLI_HOME is not an absolute path \("~\/g"\)/],
    ];
    for (const [agent, env, message] of refusals) {
      const dir = tempProject();
      const result = await loopguard(dir, ['init', agent, '--user'], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^loopguard: --user: \w+ is (empty|not an absolute path .*), so there/);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('a relative CLAUDE_CONFIG_DIR is an error, not a server registered in a ~/.claude.json Claude Code never reads', async () => {
    const dir = tempProject();
    const home = tempProject();
    const result = await loopguard(dir, ['init', 'claude'], { HOME: home, CLAUDE_CONFIG_DIR: 'cfg' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^loopguard: CLAUDE_CONFIG_DIR is not an absolute path \("cfg"\)/);
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(home)).toEqual([]);
  });

  it("--user writes the file the CLI reads: CLAUDE_CONFIG_DIR's, GEMINI_CLI_HOME's", async () => {
    const dir = tempProject();
    const home = tempProject();
    const config = tempProject();
    const env = { HOME: home, CLAUDE_CONFIG_DIR: config, GEMINI_CLI_HOME: config };
    expect((await loopguard(dir, ['init', 'claude', '--user'], env)).code).toBe(0);
    expect((await loopguard(dir, ['init', 'gemini', '--user'], env)).code).toBe(0);
    expect(read(join(config, 'settings.json')).hooks.Stop).toHaveLength(1);
    expect(read(join(config, '.gemini', 'settings.json')).hooks.AfterAgent).toHaveLength(1);
    // the MCP server goes where Claude Code reads it too; home holds only init's own record
    expect(read(join(config, '.claude.json')).mcpServers.loopguard.args).toEqual([expect.any(String), 'mcp']);
    // started without a NODE_OPTIONS a settings file's env gives it (redteam68)
    expect(read(join(config, '.claude.json')).mcpServers.loopguard.env).toEqual({ NODE_OPTIONS: '' });
    expect(readdirSync(home)).toEqual(['.loopguard']);
    const relative = await loopguard(dir, ['init', 'claude', '--user'], { ...env, CLAUDE_CONFIG_DIR: 'cfg' });
    expect(relative.stderr).toContain('--user: CLAUDE_CONFIG_DIR is not an absolute path ("cfg")');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps valid JSON byte for byte: big and overflowing numbers, empty lists, hooks.__proto__', async () => {
    const original =
      '{\n  "big": 12345678901234567890,\n  "huge": 1e400,\n  "hooks": {\n    "__proto__": [{"hooks": []}],\n' +
      '    "PreToolUse": [],\n    "Stop": [ ]\n  },\n  "escaped": "\\u00e9\\/"\n}\n';
    const dir = projectWith('claude', original);
    expect((await loopguard(dir, ['init', 'claude', '--command', 'lg'])).code).toBe(0);
    const installed = readFileSync(settingsFile(dir, 'claude'), 'utf8');
    for (const kept of ['12345678901234567890', '1e400', '"__proto__": [{"hooks": []}]', '"\\u00e9\\/"']) {
      expect(installed).toContain(kept);
    }
    expect((await loopguard(dir, ['init', 'claude', '--remove'])).code).toBe(0);
    const removed = readFileSync(settingsFile(dir, 'claude'), 'utf8');
    // byte for byte, but for the blank inside the list that loopguard filled and emptied
    expect(removed).toBe(original.replace('[ ]', '[]'));
    expect(readFileSync(settingsFile(dir, 'claude'), 'utf8')).toContain('"PreToolUse": [],');
  });

  it("reads each CLI's own dialect: a BOM for Claude Code, comments for Gemini CLI", async () => {
    const bom = '\uFEFF{"model": "opus"}\n';
    const claude = projectWith('claude', bom);
    expect((await loopguard(claude, ['init', 'claude'])).code).toBe(0);
    expect(readFileSync(settingsFile(claude, 'claude'), 'utf8').startsWith('\uFEFF{"model": "opus",')).toBe(
      true,
    );
    expect((await loopguard(claude, ['init', 'claude', '--remove'])).code).toBe(0);
    expect(readFileSync(settingsFile(claude, 'claude'), 'utf8')).toBe(bom);

    const commented = '{\n  // mine\n  "model": "gemini-3", /* pinned */\n  "hooks": {}\n}\n';
    const gemini = projectWith('gemini', commented);
    const installed = await loopguard(gemini, ['init', 'gemini']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(readFileSync(settingsFile(gemini, 'gemini'), 'utf8')).toContain(
      '// mine\n  "model": "gemini-3", /* pinned */',
    );
    expect((await loopguard(gemini, ['init', 'gemini', '--remove'])).code).toBe(0);
    expect(readFileSync(settingsFile(gemini, 'gemini'), 'utf8')).toBe(commented);
  });

  it('refuses, in one line with exit 2, what the CLI itself would not read, writing nothing', async () => {
    const cases = [
      ['gemini', '\uFEFF{}', /starts with a byte order mark, which Gemini CLI cannot read/],
      [
        'claude',
        '{\n  // mine\n  "model": "opus"\n}',
        /is not valid JSON \(.*; Claude Code reads no comments\)/,
      ],
      ['gemini', '{"hooks": {"BeforeTool": [],}}', /is not valid JSON/],
      ['claude', '{"hooks": []}', /"hooks" must be an object/],
      ['claude', '{"hooks": {"Stop": {}}}', /"hooks.Stop" must be a list/],
    ] as const;
    for (const [agent, text, message] of cases) {
      const dir = projectWith(agent, text);
      const result = await loopguard(dir, ['init', agent]);
      expect(result.code, text).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/^loopguard: \.(claude|gemini)\/settings\.json .*; nothing written$/);
      expect(readFileSync(settingsFile(dir, agent), 'utf8')).toBe(text);
      expect(settingsDir(dir, agent)).toEqual(['settings.json']);
    }
  });

  it('a dangling symbolic link and a .claude file are one line with exit 2, leaving nothing', async () => {
    const dangling = tempProject();
    mkdirSync(join(dangling, '.claude'));
    symlinkSync('/nonexistent/settings.json', settingsFile(dangling, 'claude'));
    const link = await loopguard(dangling, ['init', 'claude']);
    expect(link.code).toBe(2);
    expect(link.stderr).toBe(
      'loopguard: .claude/settings.json is a symbolic link to /nonexistent/settings.json, which does not exist; nothing written',
    );
    expect(settingsDir(dangling, 'claude')).toEqual(['settings.json']);

    const file = tempProject();
    writeFileSync(join(file, '.claude'), 'not a directory');
    const notDir = await loopguard(file, ['init', 'claude']);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toBe('loopguard: .claude is not a directory; nothing written');
    expect(readdirSync(file)).toEqual(['.claude']);
  });

  it('writes through a symbolic link to the file it points at, keeping the link', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, 'dotfiles'));
    writeFileSync(join(dir, 'dotfiles', 'claude.json'), '{"model": "opus"}\n');
    mkdirSync(join(dir, '.claude'));
    symlinkSync('../dotfiles/claude.json', settingsFile(dir, 'claude'));
    expect((await loopguard(dir, ['init', 'claude'])).code).toBe(0);
    expect(realpathSync(settingsFile(dir, 'claude'))).toBe(
      realpathSync(join(dir, 'dotfiles', 'claude.json')),
    );
    expect(read(join(dir, 'dotfiles', 'claude.json')).hooks.Stop).toHaveLength(1);
    expect(readdirSync(join(dir, 'dotfiles')).filter((f) => f.includes('loopguard-backup'))).toHaveLength(1);
  });

  it('an immutable settings file is one line with exit 2 and leaves no backup behind', async (context) => {
    const dir = projectWith('claude', '{"model": "opus"}');
    try {
      execFileSync('chattr', ['+i', settingsFile(dir, 'claude')], { stdio: 'ignore' });
    } catch {
      context.skip(); // chattr is missing, or this file system (tmpfs, overlay) has no immutable flag
    }
    try {
      const result = await loopguard(dir, ['init', 'claude']);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'loopguard: cannot write .claude/settings.json (operation not permitted, EPERM); nothing written',
      );
      expect(settingsDir(dir, 'claude')).toEqual(['settings.json']);
    } finally {
      execFileSync('chattr', ['-i', settingsFile(dir, 'claude')]);
      rmSync(dir, { recursive: true });
    }
  });
});

describe('installHooks and removeHooks on marked entries', () => {
  const install = (text: string, command = 'lg hook claude', timeout = 10) =>
    settingsFileText(
      installHooks(readSettingsText(text, 'claude'), commandEntries('claude', command, timeout)),
    );
  const remove = (text: string) => settingsFileText(removeHooks(readSettingsText(text, 'claude')));
  const marked = (owns: string, command = 'lg hook claude') =>
    `{"type":"command","command":"${command}","timeout":10,"loopguard":{"owns":"${owns}"}}`;

  it("takes out only loopguard's entry from a group the user shares with it, keeping the group", () => {
    const shared = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo x"},${marked('entry')}]}]}}`;
    expect(remove(shared)).toBe('{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo x"}]}]}}');
    // install adds its own group and takes its entry out of the shared one
    const installed = JSON.parse(install(shared));
    expect(installed.hooks.Stop).toEqual([
      { hooks: [{ type: 'command', command: 'echo x' }] },
      { hooks: [JSON.parse(marked('entry'))] },
    ]);
  });

  it('replaces a marked entry that differs (another timeout), keeping what it owns, and drops one on an event it no longer uses', () => {
    const old = `{"hooks":{"Notification":[{"hooks":[${marked('list')}]}],"Stop":[{"hooks":[${marked('list', 'old')}]}]}}`;
    const installed = JSON.parse(install(old, 'lg hook claude', 30));
    expect(Object.keys(installed.hooks)).toEqual([
      'Stop',
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'PostToolBatch',
      'SessionEnd',
    ]);
    expect(installed.hooks.Stop).toEqual([
      { hooks: [{ type: 'command', command: 'lg hook claude', timeout: 30, loopguard: { owns: 'list' } }] },
    ]);
    expect(remove(install(old))).toBe('{"hooks":{}}');
  });

  it('reads a key given twice as JSON.parse does (the last one) and leaves the first as it was', () => {
    const twice = '{"hooks":{"Stop":[1]},"hooks":{"Stop":[2]}}';
    const installed = install(twice);
    expect(installed.startsWith('{"hooks":{"Stop":[1]},"hooks":{"Stop":[2,{')).toBe(true);
    expect(remove(installed)).toBe(twice);
  });

  it('an unknown `owns` still marks an entry (owning only itself); a marker that is not an object does not', () => {
    const odd = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","loopguard":{"owns":"?"}}]}]}}`;
    expect(remove(odd)).toBe('{"hooks":{"Stop":[]}}');
    expect(remove('{"hooks":{"Stop":[{"hooks":[{"command":"x","loopguard":true}]}]}}')).toBe(
      '{"hooks":{"Stop":[{"hooks":[{"command":"x","loopguard":true}]}]}}',
    );
  });
});

describe('lineDiff', () => {
  it('lineDiff gives unified hunks with context, and nothing for equal texts', () => {
    expect(lineDiff('a\n', 'a\n', 'f')).toBe('');
    const before = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n';
    const after = 'l1\nl2\nl3\nl4\nX\nl6\nl7\nl8\nl9\n';
    expect(lineDiff(before, after, 'f')).toBe(
      '--- f\n+++ f\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+X\n l6\n l7\n l8\n',
    );
  });
});

describe('init says when the project it guards switches loopguard off (trust43)', () => {
  const cases = [
    [
      'claude',
      '.claude/settings.json',
      '{"env": {"LOOPGUARD_HOOK": "off"}}',
      'LOOPGUARD_HOOK=off in .claude/settings.json',
    ],
    [
      'claude',
      '.claude/settings.local.json',
      '{"env": {"LOOPGUARD_HOOK": "off"}}',
      'LOOPGUARD_HOOK=off in .claude/settings.local.json',
    ],
    [
      'claude',
      '.claude/settings.json',
      '{"disableAllHooks": true}',
      'disableAllHooks: true in .claude/settings.json',
    ],
    [
      'gemini',
      'loopguard.config.yaml',
      'hook:\n  enabled: false\n',
      'hook.enabled: false in loopguard.config.yaml',
    ],
  ] as const;
  it.each(cases)('%s with %s', async (agent, file, text, says) => {
    const dir = tempProject();
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, file), text);
    const result = await loopguard(dir, ['init', agent, '--command-hooks']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `warning: loopguard is switched off (${says}): its hooks answer nothing until that is taken out`,
    );
  });

  // trust62: Codex 0.169.0 reads `[features]` from a project's `.codex/config.toml` once the user
  // trusts the project (checked with `codex features list`): a repository can ship it
  it.each([
    [
      '.codex/config.toml',
      '[features]\nhooks = false\n',
      'hooks = false in [features] of .codex/config.toml',
    ],
    [
      '.codex/config.toml',
      'features.codex_hooks = false\n',
      'codex_hooks = false in [features] of .codex/config.toml',
    ],
    ['codex-home/config.toml', '[features]\nhooks = false\n', 'hooks = false in [features] of '],
  ])('codex with %s setting %j', async (file, text, says) => {
    const dir = tempProject();
    mkdirSync(join(dir, '.codex'));
    mkdirSync(join(dir, 'codex-home'));
    writeFileSync(join(dir, file), text);
    const env = { CODEX_HOME: join(dir, 'codex-home'), HOME: dir };
    const result = await loopguard(dir, ['init', 'codex', '--project'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`warning: loopguard is switched off (${says}`);
  });

  // qa70: a shell that exported LOOPGUARD_HOOK=off (the one-session switch) hands it to every agent
  // started from it, which hand it to their hooks and to loopguard's MCP server: init said "guards"
  it.each([
    ['claude', []],
    ['gemini', []],
    ['codex', []],
    ['claude', ['--user']],
  ] as const)('%s %j, run where LOOPGUARD_HOOK=off is in the environment', async (agent, scope) => {
    const dir = tempProject();
    const result = await loopguard(dir, ['init', agent, ...scope], { LOOPGUARD_HOOK: 'off' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "warning: loopguard is switched off (LOOPGUARD_HOOK=off in this shell's environment, which an agent started from it hands to its hooks): its hooks answer nothing until that is taken out",
    );
    if (agent === 'claude' && scope.length > 0)
      await loopguard(dir, ['init', agent, ...scope, '--remove'], { LOOPGUARD_HOOK: 'off' });
  });

  // trust71: the other spellings of off the hooks read are said as such; a typo is said too (the hooks stay on)
  it('LOOPGUARD_HOOK=" No " is said as off, LOOPGUARD_HOOK=of as a value that leaves loopguard on', async () => {
    const off = await loopguard(tempProject(), ['init', 'gemini'], { LOOPGUARD_HOOK: ' No ' });
    expect(off.stdout).toContain(
      "warning: loopguard is switched off (LOOPGUARD_HOOK=No in this shell's environment, which an agent started from it hands to its hooks)",
    );
    const typo = await loopguard(tempProject(), ['init', 'gemini'], { LOOPGUARD_HOOK: 'of' });
    expect(typo.code, typo.stderr).toBe(0);
    expect(typo.stdout).toContain(
      'warning: LOOPGUARD_HOOK="of" is neither off (off, 0, false, no) nor on: loopguard stays on',
    );
    expect(typo.stdout).not.toContain('switched off');
    const settings = tempProject();
    mkdirSync(join(settings, '.claude'), { recursive: true });
    writeFileSync(join(settings, '.claude', 'settings.local.json'), '{"env": {"LOOPGUARD_HOOK": "FALSE"}}');
    const local = await loopguard(settings, ['init', 'claude', '--command-hooks']);
    expect(local.stdout).toContain(
      'warning: loopguard is switched off (LOOPGUARD_HOOK=FALSE in .claude/settings.local.json)',
    );
  });

  it('says nothing of the kind in a project that leaves it on', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'hook:\n  enabled: true\n');
    const result = await loopguard(dir, ['init', 'claude', '--command-hooks']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('switched off');
  });
});
