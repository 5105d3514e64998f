import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProject } from './hookHelpers.js';
import { bin, loopguard } from './runHelpers.js';

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
/** Every loopguard hook entry of a settings file (none when there is no file). */
const oursIn = (file: string): Array<Record<string, unknown>> =>
  existsSync(file)
    ? Object.values(read(file).hooks ?? {})
        .flatMap((groups) =>
          (groups as Array<{ hooks: Array<Record<string, unknown>> }>).flatMap((group) => group.hooks),
        )
        .filter((entry) => entry.loopguard !== undefined)
    : [];

/** A user (HOME, with Claude Code's configuration holding `config`) and an empty project. */
function setUp(config = '{\n  "numStartups": 3,\n  "primaryApiKey": "sk-ant-not-a-real-key"\n}\n') {
  const home = tempProject();
  const dir = tempProject();
  writeFileSync(join(home, '.claude.json'), config, { mode: 0o600 });
  const run = (args: string[], cwd = dir) => loopguard(cwd, args, { HOME: home });
  return { home, dir, run, config: join(home, '.claude.json') };
}

describe("init never leaves loopguard's MCP server without the hook that refuses the model's call (issue 38)", () => {
  it('init claude --user, then --command-hooks --replace in a project: the user-level server goes with its hooks', async () => {
    const { home, dir, run, config } = setUp();
    expect((await run(['init', 'claude', '--user'])).code).toBe(0);
    expect(read(config).mcpServers.loopguard).toBeDefined();
    const replaced = await run(['init', 'claude', '--command-hooks', '--replace']);
    expect(replaced.code, replaced.stderr).toBe(0);
    // the user's settings file and folder were init's own: gone, not left as {}
    expect(existsSync(join(home, '.claude'))).toBe(false);
    // no settings file holds an mcp_tool hook any more, so no server may be registered
    expect(readFileSync(config, 'utf8')).not.toContain('"loopguard"');
    expect(replaced.stdout).toContain(
      `${config}: loopguard's MCP server taken out of every project (--replace)`,
    );
    expect(oursIn(join(dir, '.claude', 'settings.json')).map((e) => e.type)).toEqual([
      'command',
      'command',
      'command',
      'command',
      'command',
      'command',
    ]);
  });

  it('uninstall takes out the server entry of a project whose folder was deleted', async () => {
    const { dir, run, config, home } = setUp();
    expect((await run(['init', 'claude'])).code).toBe(0);
    expect(read(config).projects[dir].mcpServers.loopguard).toBeDefined();
    rmSync(dir, { recursive: true });
    const result = await run(['uninstall'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(
      '{\n  "numStartups": 3,\n  "primaryApiKey": "sk-ant-not-a-real-key"\n}\n',
    );
    expect(existsSync(join(home, '.loopguard', 'installs.json'))).toBe(false);
  });

  it('sess68: uninstall takes out the ~/.claude.json init made for a project whose folder was deleted', async () => {
    const { dir, run, config, home } = setUp();
    rmSync(config);
    expect((await run(['init', 'claude'])).code).toBe(0);
    expect(read(config).projects[dir].mcpServers.loopguard).toBeDefined();
    rmSync(dir, { recursive: true });
    const result = await run(['uninstall'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `${config}: loopguard's MCP server taken out of ${dir} (the folder is gone); removed (init had made it)`,
    );
    expect(readdirSync(home)).toEqual([]);
  });
});

describe('init refuses a ~/.claude.json it cannot edit safely, naming the problem and changing nothing (issue 38)', () => {
  const cases = [
    ['truncated', '{\n  "primaryApiKey": "sk-ant-not-a-real-key",\n  "projects": {', /is not valid JSON \(/],
    ['a trailing comma', '{"primaryApiKey": "sk-ant-not-a-real-key",}', /is not valid JSON \(/],
    [
      'comments',
      '{\n  // mine\n  "primaryApiKey": "sk-ant-not-a-real-key"\n}\n',
      /is not valid JSON \(.*; Claude Code reads no comments\)/,
    ],
    ['plain text', 'primaryApiKey sk-ant-not-a-real-key\n', /is not valid JSON \(/],
    [
      'a byte order mark',
      '\uFEFF{"primaryApiKey": "sk-ant-not-a-real-key"}',
      /starts with a byte order mark/,
    ],
    ['an array', '["sk-ant-not-a-real-key"]', /must hold a JSON object/],
  ] as const;
  for (const [what, text, message] of cases) {
    it(`${what}`, async () => {
      const { dir, run, config } = setUp(text);
      const result = await run(['init', 'claude']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(new RegExp(`^loopguard: ${config} .*; nothing written$`));
      // the error names the problem, never the file's text (it holds the user's credentials)
      expect(result.stderr).not.toContain('sk-ant');
      expect(readFileSync(config, 'utf8')).toBe(text);
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('a key on the path init edits given twice (Claude Code reads the last one)', async () => {
    const { dir, run, config } = setUp();
    const twice = (project: string) =>
      `{"projects": {"${project}": {"mcpServers": {}}}, "numStartups": 3, "projects": {"${project}": {"allowedTools": []}}}`;
    writeFileSync(config, twice(dir));
    const result = await run(['init', 'claude']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `loopguard: ${config} holds "projects" twice (Claude Code reads the last one): remove one by hand; nothing written`,
    );
    expect(readFileSync(config, 'utf8')).toBe(twice(dir));
    writeFileSync(config, `{"projects": {"${dir}": {"mcpServers": {"a": 1}, "mcpServers": {}}}}`);
    const inner = await run(['init', 'claude']);
    expect(inner.stderr).toContain(`holds "projects" > "${dir}" > "mcpServers" twice`);
    // a key twice elsewhere is Claude Code's business, not on the path: edited as before
    writeFileSync(config, '{"tipsHistory": {}, "tipsHistory": {"a": 1}}');
    expect((await run(['init', 'claude'])).code).toBe(0);
    expect(readFileSync(config, 'utf8')).toMatch(
      /^\{"tipsHistory": \{\}, "tipsHistory": \{"a": 1\},"projects":/,
    );
  });

  it('an edit changes only the bytes of what it adds, on one line or indented, and --remove gives the text back', async () => {
    for (const text of [
      '{"numStartups":3,"projects":{"/elsewhere":{"allowedTools":[]}},"userID":"x"}',
      '{\n    "numStartups": 3,\n    "projects": {\n        "/elsewhere": {}\n    }\n}\n',
    ]) {
      const { dir, run, config } = setUp(text);
      expect((await run(['init', 'claude'])).code).toBe(0);
      const installed = readFileSync(config, 'utf8');
      // one line stays one line; an indented file gets the server indented as its own lines
      expect(installed.includes('\n')).toBe(text.includes('\n'));
      const parsed = read(config);
      expect(parsed.projects[dir].mcpServers.loopguard.type).toBe('stdio');
      delete parsed.projects[dir];
      expect(parsed).toEqual(JSON.parse(text));
      expect((await run(['init', 'claude', '--remove'])).code).toBe(0);
      expect(readFileSync(config, 'utf8')).toBe(text);
    }
  });
});

describe('what init says, and what uninstall leaves behind (issue 35)', () => {
  it('names every file it changed and how to undo it', async () => {
    const { dir, run, config, home } = setUp();
    const result = await run(['init', 'claude']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      ".claude/settings.json: loopguard guards Claude Code on PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, Stop, SessionEnd through loopguard's MCP server (mcp_tool hooks)",
      expect.stringMatching(
        new RegExp(
          `^${config}: loopguard's MCP server registered for ${dir} \\(projects\\["${dir}"\\]\\.mcpServers\\.loopguard\\); backup in ${config}\\.loopguard-backup-\\d+$`,
        ),
      ),
      `${join(home, '.loopguard', 'installs.json')}: recorded for loopguard uninstall`,
      'To undo: loopguard init claude --remove (or loopguard uninstall, for every install)',
      `Claude Code reads .claude/settings.json only when started in ${dir}: a session started in a subfolder runs unguarded (loopguard init claude --user guards every folder)`,
      "Claude Code's status line can show what loopguard did to each session: loopguard init claude --status-line",
    ]);
    const removed = await run(['init', 'claude', '--remove']);
    expect(removed.stdout).toContain(`${config}: loopguard's MCP server taken out of ${dir}`);
    expect(removed.stdout).toContain('.claude/settings.json: removed (init had made it)');
  });

  it("qa64: in the home folder, where the project's settings file is the user's, init refuses and names --user (nothing written)", async () => {
    const { home, run, config } = setUp();
    const before = readFileSync(config, 'utf8');
    for (const [agent, file] of [
      ['claude', join(home, '.claude', 'settings.json')],
      ['gemini', join(home, '.gemini', 'settings.json')],
      ['codex', join(home, '.codex', 'hooks.json')],
    ] as const) {
      const result = await run(['init', agent], home);
      expect([result.code, result.stdout]).toEqual([2, '']);
      expect(result.stderr).toBe(
        `loopguard: ${file} is ${agent === 'claude' ? 'Claude Code' : agent === 'gemini' ? 'Gemini CLI' : 'Codex'}'s settings file for every folder (${home} is the home folder): loopguard init ${agent} --user guards every folder; or run init in a project's folder`,
      );
      expect(existsSync(file)).toBe(false);
    }
    expect(readFileSync(config, 'utf8')).toBe(before);
    expect(existsSync(join(home, '.loopguard', 'installs.json'))).toBe(false);
    // --user there is the way, and works
    expect((await run(['init', 'claude', '--user'], home)).code).toBe(0);
  });

  it('says a session started in a subfolder runs unguarded: Gemini CLI too, not a --user install (qa47)', async () => {
    const { dir, run } = setUp();
    const gemini = await run(['init', 'gemini']);
    expect(gemini.stdout).toContain(
      `Gemini CLI reads .gemini/settings.json only when started in ${dir}: a session started in a subfolder runs unguarded (loopguard init gemini --user guards every folder)`,
    );
    const user = await run(['init', 'claude', '--user']);
    expect(user.code, user.stderr).toBe(0);
    expect(user.stdout).not.toContain('subfolder');
  });

  it("qa68: the status line is run again every 10 s, so a stop no reply follows reaches it; an older init's line gets the interval", async () => {
    // Claude Code runs a status line after each reply: a session its PostToolUse hook stopped gets no
    // reply after the stop, and the real Claude Code 2.1.330 kept "running, 3 tool calls ran, 1 nudge"
    const { dir, run } = setUp();
    const settings = join(dir, '.claude', 'settings.json');
    const set = await run(['init', 'claude', '--status-line']);
    expect(set.code, set.stderr).toBe(0);
    const line = read(settings).statusLine;
    expect(line).toMatchObject({ type: 'command', refreshInterval: 10 });
    expect(set.stdout).toContain('(what loopguard did to this session, after each reply and every 10 s)');
    // a line an earlier init wrote, without the interval: loopguard's, set anew with it
    const { refreshInterval: _, ...older } = line;
    writeFileSync(settings, JSON.stringify({ ...read(settings), statusLine: older }, null, 2));
    const upgraded = await run(['init', 'claude', '--status-line']);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(read(settings).statusLine).toEqual(line);
  });

  it("sets Claude Code's status line with --status-line, never replaces the user's own without --replace, and --remove takes it out", async () => {
    const { dir, run } = setUp();
    const settings = join(dir, '.claude', 'settings.json');
    mkdirSync(join(dir, '.claude'));
    writeFileSync(settings, '{\n  "statusLine": { "type": "command", "command": "~/bin/my-line.sh" }\n}\n');
    const kept = await run(['init', 'claude', '--status-line']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(read(settings).statusLine).toEqual({ type: 'command', command: '~/bin/my-line.sh' });
    expect(kept.stdout).toContain(
      '.claude/settings.json: keeps your status line; loopguard init claude --replace sets',
    );
    const replaced = await run(['init', 'claude', '--status-line', '--replace']);
    expect(replaced.code, replaced.stderr).toBe(0);
    // node runs the bundled status line itself (no bin.js), and the command works as Claude Code runs it
    const command = read(settings).statusLine.command;
    expect(command).toBe(
      `NODE_OPTIONS= NODE_EXTRA_CA_CERTS= '${process.execPath}' '${join(realpathSync(dirname(bin)), 'bundle', 'statusline.cjs')}'`,
    );
    // an inherited NODE_OPTIONS (a settings file's env) does not load code into it (trust70)
    const planted = join(dir, 'planted.cjs');
    writeFileSync(planted, "require('fs').writeFileSync(__filename + '.ran', '')");
    expect(
      execFileSync('sh', ['-c', command], {
        input: JSON.stringify({ session_id: 's', cwd: dir }),
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: `--require=${planted}` },
      }),
    ).toBe('loopguard: watching\n');
    expect(existsSync(`${planted}.ran`)).toBe(false);
    expect(replaced.stdout).toContain('status line replaced by loopguard statusline (--replace)');
    const again = await run(['init', 'claude', '--status-line']);
    expect(again.stdout).toContain('loopguard hooks already installed');
    // what an older init wrote (loopguard's bin, then statusline) is loopguard's: set anew, not kept as the user's
    const older = readFileSync(settings, 'utf8').replace(
      JSON.stringify(command).slice(1, -1),
      `'${bin}' statusline`,
    );
    writeFileSync(settings, older);
    const upgraded = await run(['init', 'claude', '--status-line']);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(read(settings).statusLine.command).toBe(command);
    const removed = await run(['init', 'claude', '--remove']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(read(settings).statusLine).toBeUndefined();
    expect(removed.stdout).toContain("loopguard's status line removed");
  });

  it('init claude --status-line, then --remove: the settings file init made goes, said once, not followed by what went with it (qa41)', async () => {
    const { dir, run } = setUp();
    expect((await run(['init', 'claude', '--status-line'])).code).toBe(0);
    const removed = await run(['init', 'claude', '--remove']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(join(dir, '.claude', 'settings.json'))).toBe(false);
    const lines = removed.stdout.split('\n').filter((line) => line.startsWith('.claude/settings.json'));
    expect(lines).toEqual(['.claude/settings.json: removed (init had made it)']);
  });

  it('warns when the settings file is tracked by git while its MCP server is registered for this user only', async () => {
    const { dir, run } = setUp();
    execFileSync('git', ['init', '-q'], { cwd: dir });
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.claude', 'settings.json'), '{}\n');
    execFileSync('git', ['add', '.claude/settings.json'], { cwd: dir });
    const tracked = await run(['init', 'claude']);
    expect(tracked.code, tracked.stderr).toBe(0);
    expect(tracked.stdout).toContain('warning: .claude/settings.json is tracked by git, but the MCP server');
    const commandHooks = await run(['init', 'claude', '--command-hooks']);
    expect(commandHooks.stdout).not.toContain('warning');
    const untracked = setUp();
    execFileSync('git', ['init', '-q'], { cwd: untracked.dir });
    expect((await untracked.run(['init', 'claude'])).stdout).not.toContain('warning');
  });

  it('uninstall with user settings init never wrote says, in one line, the files it looked at (polish66)', async () => {
    const { home, run } = setUp();
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude', 'settings.json'), '{"permissions": {}}\n');
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'settings.json'), '{}\n');
    const result = await run(['uninstall'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `loopguard: nothing to take out: no loopguard hook in ${join(home, '.claude/settings.json')} or ${join(home, '.gemini/settings.json')}; ${join(home, '.codex/hooks.json')} is not there; no project init recorded holds a loopguard hook`,
    );
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toBe('{"permissions": {}}\n');
  });

  // sess68: in a fresh home, init made ~/.claude.json for its server; uninstall left `{}` and a backup of it
  it('uninstall in a fresh home takes out the ~/.claude.json init made, leaving the home as it found it; a file it held no hook in is named', async () => {
    const { home, dir, run } = setUp();
    rmSync(join(home, '.claude.json'));
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'settings.json'), '{"theme": "dark"}\n');
    expect((await run(['init', 'claude', '--user'], home)).code).toBe(0);
    // a project's server beside it in the same file: the file is still the one init made
    expect((await run(['init', 'claude'])).code).toBe(0);
    expect(existsSync(join(home, '.claude.json'))).toBe(true);
    const result = await run(['uninstall'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(home)).toEqual(['.gemini']);
    expect(readdirSync(dir)).toEqual([]);
    expect(result.stdout).toContain(`${join(home, '.claude.json')}: removed (init had made it)`);
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      `loopguard: nothing else to take out: no loopguard hook in ${join(home, '.gemini/settings.json')}; ${join(home, '.codex/hooks.json')} is not there`,
    );
  });

  it('init claude --user --remove in a fresh home takes out the ~/.claude.json init made; one Claude Code wrote to since stays', async () => {
    const { home, run, config } = setUp();
    rmSync(config);
    expect((await run(['init', 'claude', '--user'], home)).code).toBe(0);
    expect((await run(['init', 'claude', '--user', '--remove'], home)).code).toBe(0);
    expect(readdirSync(home)).toEqual([]);
    // Claude Code, run since, keeps its own keys in the file: only the server goes
    expect((await run(['init', 'claude', '--user'], home)).code).toBe(0);
    const text = readFileSync(config, 'utf8');
    writeFileSync(config, text.replace('{', '{\n  "numStartups": 1,'));
    expect((await run(['init', 'claude', '--user', '--remove'], home)).code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ numStartups: 1 });
  });

  it('uninstall leaves no folder init made, no "mcpServers": {}, no installs.json, and names what it left in one closing line, not one per file', async () => {
    const { home, dir, run, config } = setUp('{"numStartups": 3}\n');
    expect((await run(['init', 'claude'])).code).toBe(0);
    expect((await run(['init', 'gemini'])).code).toBe(0);
    expect((await run(['init', 'claude', '--user'])).code).toBe(0);
    const result = await run(['uninstall'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('no loopguard hooks to remove');
    expect(result.stdout).not.toContain('nothing to take out');
    // sess68: after the files it cleaned, what it looked at and left, in one line
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      `loopguard: nothing else to take out: ${join(home, '.gemini/settings.json')} and ${join(home, '.codex/hooks.json')} are not there`,
    );
    // qa53: run again, it says that there was nothing left, where it said nothing at all
    const again = await run(['uninstall'], home);
    expect(again.code, again.stderr).toBe(0);
    // polish66: it names what it looked at
    const shownHome = (path: string) => join(home, path);
    expect(again.stdout).toBe(
      `loopguard: nothing to take out: ${shownHome('.claude/settings.json')}, ${shownHome('.gemini/settings.json')} and ${shownHome('.codex/hooks.json')} are not there; no project init recorded holds a loopguard hook`,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(readFileSync(config, 'utf8')).toBe('{"numStartups": 3}\n');
    // only Claude Code's file (and init's one backup of it) is left in the home folder
    expect(readdirSync(home).filter((name) => !name.includes('.loopguard-backup-'))).toEqual([
      '.claude.json',
    ]);
  });
});
