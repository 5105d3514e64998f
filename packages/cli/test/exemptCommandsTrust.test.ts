import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EXEMPT_COMMANDS } from '@loopguard/core/steps';
import { describe, expect, it } from 'vitest';
import { checkedHookConfig } from '../src/hook/checkedHookConfig.js';
import { runCli } from '../src/main.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';
import { bin } from './runHelpers.js';

// trust51: a repository's `hook.exemptCommands` are regular expressions the hook runs on every
// command the model types. `["."]` exempted every command with no door saying so, and a pattern
// that backtracks held each hook call to its deadline. Both are now refused where the file is read
// (the hooks fail open on it, and every door says so, as for any value they refuse).

/** A repository whose configuration adds `sources` to the polling commands. */
function repository(sources: string[]): { dir: string; file: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-exempt-')));
  mkdirSync(join(dir, '.git'));
  const file = join(dir, 'loopguard.config.json');
  writeFileSync(file, JSON.stringify({ hook: { exemptCommands: sources } }));
  return { dir, file };
}

/** One Claude Code call of `command` in `dir`, through the built hook. */
function hook(dir: string, command: string) {
  const event = {
    session_id: 's',
    cwd: dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_response: { stdout: '', stderr: '', interrupted: false },
    tool_use_id: 'toolu_1',
  };
  return spawnSync(process.execPath, [bin, 'hook', 'claude'], {
    cwd: dir,
    input: JSON.stringify(event),
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir, HOME: dir, LOOPGUARD_HOOK: '' },
  });
}

async function status(dir: string) {
  const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1', HOME: dir } });
  const code = await runCli(['status'], io);
  return { code, out: io.out(), err: io.err() };
}

describe("a repository's hook.exemptCommands (trust51)", () => {
  it.each([
    ['.', /exempts every command/],
    ['^', /exempts every command/],
    ['\\w', /exempts every command/],
    ['(?:)', /exempts every command/],
    ['\\s', /exempts every command/],
    ['[\\s\\S]*', /exempts every command/],
    // trust52: a tool that is not the shell is matched by its input's JSON: these exempted every
    // Read, Edit, Write and MCP call, in every agent
    ['"', /exempts every call of a tool other than the shell/],
    ['^\\{', /exempts every call of a tool other than the shell/],
    ['\\}$', /exempts every call of a tool other than the shell/],
    [':', /exempts every call of a tool other than the shell/],
    ['(a+)+$', /can take time that grows faster than the command's length/],
    ['(\\w+\\s?)*$', /can take time that grows faster than the command's length/],
    ['.*.*=.*', /can take time that grows faster than the command's length/],
    // bounded, and still 2^20 tries a start: counted as unbounded when judged
    ['(?:a?){20}a{20}b', /can take time that grows faster than the command's length/],
  ])(
    'refuses %j, naming the file and the pattern; every door says the hooks fail open there',
    async (source, reason) => {
      const { dir, file } = repository(['^make watch\\b', source]);
      const error = await checkedHookConfig(dir).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(error).toContain(`config ${file}: hook.exemptCommands.1 ${JSON.stringify(source)} `);
      expect(error).toMatch(reason);
      // the hook never runs it: it fails open, records nothing, and status tells why
      const call = hook(dir, `${'a'.repeat(40)}!`);
      expect(call.status).toBe(0);
      expect(call.stdout).toBe('');
      expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(false);
      const said = await status(dir);
      expect(said.code).toBe(EXIT_CODES.usage);
      expect(said.err).toContain(`loopguard: failing open in ${dir} (config ${file}: hook.exemptCommands.1 `);
    },
  );

  it.each(['Bash', 'run_shell_command', 'shell', 'exec_command'])(
    "refuses hook.exemptTools naming the agent's shell (%s): it exempts every command the same way",
    async (tool) => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-exempt-tools-')));
      mkdirSync(join(dir, '.git'));
      const file = join(dir, 'loopguard.config.yaml');
      writeFileSync(file, `hook:\n  exemptTools: [BashOutput, ${tool}]\n`);
      await expect(checkedHookConfig(dir)).rejects.toThrow(
        `config ${file}: hook.exemptTools.1 "${tool}" is the agent's shell: exempting it exempts every command`,
      );
      const said = await status(dir);
      expect(said.err).toContain(`loopguard: failing open in ${dir} (config ${file}: hook.exemptTools.1 `);
    },
  );

  it('takes polling tools', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-exempt-tools-')));
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      'hook:\n  exemptTools: [BashOutput, sleep, mcp__ci__wait_for_build]\n',
    );
    expect((await checkedHookConfig(dir)).detector.exemptTools).toEqual([
      'BashOutput',
      'sleep',
      'mcp__ci__wait_for_build',
    ]);
  });

  it('takes polling commands, and the defaults pass the same check', async () => {
    const sources = [
      '^make watch\\b',
      '^npm run watch',
      '\\bdocker compose logs -f\\b',
      '^pnpm (?:dev|start)\\b',
      '^\\s*until curl -sf localhost:\\d{4}',
      '^cat ',
      '^ls ',
      ...DEFAULT_EXEMPT_COMMANDS.map((pattern) => pattern.source),
    ];
    const { dir } = repository(sources);
    const { detector } = await checkedHookConfig(dir);
    expect(detector.exemptCommands?.map((pattern) => pattern.source)).toEqual([
      ...DEFAULT_EXEMPT_COMMANDS.map((pattern) => pattern.source),
      ...sources,
    ]);
  });

  it("init says what a repository's configuration changes in the guard, and where it came from (trust52)", async () => {
    const { dir, file } = repository(['^(?:npm|make|pytest) ']);
    // installed, then asked again (already installed): both say it
    for (let run = 0; run < 2; run++) {
      // a home of its own: init in the home folder itself is refused (qa64)
      const io = bufferedIo({ cwd: dir, env: { HOME: mkdtempSync(join(tmpdir(), 'loopguard-home-')) } });
      expect(await runCli(['init', 'claude', '--project'], io), io.err()).toBe(EXIT_CODES.ok);
      expect(io.out()).toContain(
        `hooks: settings of this project (${file}): commands matching "^(?:npm|make|pytest) " are exempt: loopguard judges none of their calls\n`,
      );
    }
  });

  // sessions60: the dry run, where a user reads what init would do before doing it, said nothing of it
  it('init --dry-run says it too, and writes nothing', async () => {
    const { dir, file } = repository(['^(?:npm|make|pytest) ']);
    const io = bufferedIo({ cwd: dir, env: { HOME: mkdtempSync(join(tmpdir(), 'loopguard-home-')) } });
    expect(await runCli(['init', 'gemini', '--project', '--dry-run'], io), io.err()).toBe(EXIT_CODES.ok);
    expect(io.out()).toContain('+++ .gemini/settings.json');
    expect(io.out()).toContain(
      `hooks: settings of this project (${file}): commands matching "^(?:npm|make|pytest) " are exempt: loopguard judges none of their calls\n`,
    );
    expect(existsSync(join(dir, '.gemini'))).toBe(false);
  });

  it("the built hook seals what it checked under its build's id, as the bundles and the startup snapshot carry it", async () => {
    const { BUILD_ID } = (await import(join(bin, '..', 'buildId.js'))) as { BUILD_ID: string };
    expect(BUILD_ID).toMatch(/^[0-9a-f]{16}$/);
    const { dir } = repository(['^make watch\\b']);
    mkdirSync(join(dir, '.loopguard'));
    expect(hook(dir, 'ls').status).toBe(0);
    expect(readFileSync(join(dir, '.loopguard', 'config.sealed'), 'utf8')).toMatch(
      new RegExp(`^\\{"seal":"c4\\.${BUILD_ID}\\.`),
    );
  });
});
