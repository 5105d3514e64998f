import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProject } from './hookHelpers.js';
import { loopguard } from './runHelpers.js';

const projectSettings = (dir: string) => join(dir, '.claude', 'settings.json');
const userSettings = (home: string) => join(home, '.claude', 'settings.json');
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
/** Every hook entry of a settings file, flattened. */
const entriesOf = (file: string): Array<Record<string, unknown>> =>
  Object.values(read(file).hooks ?? {}).flatMap((groups) =>
    (groups as Array<{ hooks: Array<Record<string, unknown>> }>).flatMap((group) => group.hooks),
  );

/** A user (HOME) and a project with a settings file holding `settings`. */
function setUp(settings?: unknown) {
  const home = tempProject();
  const dir = tempProject();
  if (settings !== undefined) {
    mkdirSync(join(dir, '.claude'));
    writeFileSync(projectSettings(dir), `${JSON.stringify(settings, null, 2)}\n`);
  }
  const run = (args: string[]) => loopguard(dir, args, { HOME: home });
  return { home, dir, run };
}

describe('loopguard init: a hook installed twice (issue 30)', () => {
  it('names a loopguard hook it did not write (another clone’s, an older install) and --replace takes it out', async () => {
    const other = {
      type: 'command',
      command: "'/usr/bin/node' '/old/clone/packages/cli/dist/bin.js' hook claude",
    };
    const foreign = { type: 'command', command: 'othertool hook claude' };
    const { dir, run } = setUp({ hooks: { PostToolUse: [{ matcher: '*', hooks: [other, foreign] }] } });
    const init = await run(['init', 'claude']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('also holds loopguard hooks that init did not write (PostToolUse: ');
    expect(init.stdout).toContain('/old/clone/packages/cli/dist/bin.js');
    expect(init.stdout).toContain('loopguard init claude --replace takes them out');
    expect(entriesOf(projectSettings(dir))).toContainEqual(other);
    const replaced = await run(['init', 'claude', '--replace']);
    expect(replaced.code, replaced.stderr).toBe(0);
    const entries = entriesOf(projectSettings(dir));
    expect(entries).not.toContainEqual(other);
    expect(entries).toContainEqual(foreign);
    expect(entries.filter((e) => e.type === 'mcp_tool')).toHaveLength(5);
  });

  it('names loopguard hooks of the other scope, and --replace takes them out there', async () => {
    const { home, dir, run } = setUp();
    expect((await run(['init', 'claude', '--user'])).code).toBe(0);
    const project = await run(['init', 'claude']);
    expect(project.stdout).toContain(
      `${userSettings(home)} also runs loopguard's hooks: every call reaches loopguard twice (counted once); --replace takes them out there`,
    );
    const replaced = await run(['init', 'claude', '--replace']);
    expect(replaced.stdout).toContain(`${userSettings(home)}: removed loopguard's hooks (--replace)`);
    // init had made the user's file (and ~/.claude): taken away, not left as {}
    expect(existsSync(join(home, '.claude'))).toBe(false);
    expect(entriesOf(projectSettings(dir)).filter((e) => e.loopguard !== undefined)).toHaveLength(6);
  });

  it('keeps one backup however often it runs, and --remove leaves no file where there was none', async () => {
    const { dir, run } = setUp({ model: 'x' });
    for (let n = 0; n < 3; n++) {
      expect((await run(['init', 'claude'])).code).toBe(0);
      expect((await run(['init', 'claude', '--remove'])).code).toBe(0);
    }
    expect(readdirSync(join(dir, '.claude')).filter((f) => f.includes('loopguard-backup'))).toHaveLength(1);
    expect(read(projectSettings(dir))).toEqual({ model: 'x' });
    const fresh = setUp();
    expect((await fresh.run(['init', 'claude'])).code).toBe(0);
    expect((await fresh.run(['init', 'claude'])).code).toBe(0);
    expect((await fresh.run(['init', 'claude', '--remove'])).code).toBe(0);
    // init made .claude/ too: none is left behind empty
    expect(existsSync(join(fresh.dir, '.claude'))).toBe(false);
  });

  it("--remove takes loopguard's MCP server out of Claude Code's configuration too", async () => {
    const { home, dir, run } = setUp();
    writeFileSync(join(home, '.claude.json'), '{"numStartups": 3}\n');
    expect((await run(['init', 'claude'])).code).toBe(0);
    expect(read(join(home, '.claude.json')).projects[dir].mcpServers.loopguard).toMatchObject({
      type: 'stdio',
    });
    expect((await run(['init', 'claude', '--remove'])).code).toBe(0);
    // what init added for the server goes with it: no "projects" or "mcpServers": {} left behind
    expect(readFileSync(join(home, '.claude.json'), 'utf8')).toBe('{"numStartups": 3}\n');
  });
});

describe('loopguard uninstall', () => {
  it('takes the hooks out of the user’s settings and of every project init recorded', async () => {
    const { home, dir, run } = setUp();
    const second = tempProject();
    expect((await run(['init', 'claude', '--user'])).code).toBe(0);
    expect((await run(['init', 'claude'])).code).toBe(0);
    expect((await run(['init', 'gemini'])).code).toBe(0);
    expect((await loopguard(second, ['init', 'claude', '--command-hooks'], { HOME: home })).code).toBe(0);
    const result = await run(['uninstall']);
    expect(result.code, result.stderr).toBe(0);
    for (const file of [userSettings(home), projectSettings(dir), projectSettings(second)])
      expect(existsSync(file) ? entriesOf(file) : []).toEqual([]);
    expect(existsSync(join(dir, '.gemini', 'settings.json'))).toBe(false);
    // init made ~/.claude.json and loopguard's server was all it held: it goes, as init found the home (sess68)
    expect(existsSync(join(home, '.claude.json'))).toBe(false);
    // each file named where the user can find it: another project's by its full path (qa39)
    expect(result.stdout).toContain(`${projectSettings(second)}: removed (init had made it)`);
    expect(result.stdout).toContain(`${join('.gemini', 'settings.json')}: removed (init had made it)`);
  });

  it('refuses when a settings file cannot be written, printing the exact command', async () => {
    const { home, dir, run } = setUp({});
    expect((await run(['init', 'claude', '--command-hooks'])).code).toBe(0);
    // a file edited into something Claude Code would not read either: init refuses to touch it
    writeFileSync(projectSettings(dir), '{ "hooks": [], }');
    const result = await run(['uninstall']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`run cd '${dir}' && loopguard init claude --remove`);
    expect(existsSync(join(home, '.loopguard', 'installs.json'))).toBe(true);
  });
});
