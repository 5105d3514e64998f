import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexHomeOf, settingsFileOf } from '../src/commands/settingsLocation.js';
import { claudeConfigFile } from '../src/files/agentHome.js';
import type { HookAgent } from '../src/hook/hookEvent.js';
import { claudeProjectsDir } from '../src/mcp/sessionTranscript.js';
import { transcriptPlaces } from '../src/scan/transcriptPlaces.js';
import type { CliIo } from '../src/terminal/cliIo.js';

/**
 * Where each CLI keeps the user's files, as the pinned CLIs do it (run with each value: Claude
 * Code 2.1.330, Gemini CLI 0.61.0, Codex 0.169.0). `undefined`: the CLI reads a folder relative to
 * the one it was started in, which loopguard cannot know, so every place refuses it.
 */
const account = userInfo().homedir;
const CASES: Record<HookAgent, [NodeJS.ProcessEnv, string | undefined][]> = {
  claude: [
    [{ HOME: '/home/u' }, '/home/u/.claude'],
    [{ HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' }, '/cfg'],
    // an empty CLAUDE_CONFIG_DIR is set: Claude Code reads ./settings.json
    [{ HOME: '/home/u', CLAUDE_CONFIG_DIR: '' }, undefined],
    // not trimmed: it reads './  /settings.json'
    [{ HOME: '/home/u', CLAUDE_CONFIG_DIR: '  ' }, undefined],
    [{ HOME: '/home/u', CLAUDE_CONFIG_DIR: ' /cfg ' }, undefined],
    [{ HOME: '/home/u', CLAUDE_CONFIG_DIR: 'cfg' }, undefined],
    [{ HOME: '/home/u', CLAUDE_CONFIG_DIR: '~/cfg' }, undefined],
    [{}, join(account, '.claude')],
    // Bun's home: an empty HOME is unset
    [{ HOME: '' }, join(account, '.claude')],
    [{ HOME: 'home/u' }, undefined],
  ],
  gemini: [
    [{ HOME: '/home/u' }, '/home/u/.gemini'],
    [{ HOME: '/home/u', GEMINI_CLI_HOME: '/g' }, '/g/.gemini'],
    [{ HOME: '/home/u', GEMINI_CLI_HOME: '' }, '/home/u/.gemini'],
    [{ HOME: '/home/u', GEMINI_CLI_HOME: '  ' }, undefined],
    [{ HOME: '/home/u', GEMINI_CLI_HOME: 'g' }, undefined],
    [{ HOME: '/home/u', GEMINI_CLI_HOME: '~' }, undefined],
    [{}, join(account, '.gemini')],
    // Node's os.homedir(): an empty HOME is the empty path, so ./.gemini
    [{ HOME: '' }, undefined],
    [{ HOME: 'home/u' }, undefined],
  ],
  codex: [
    [{ HOME: '/home/u' }, '/home/u/.codex'],
    [{ HOME: '/home/u', CODEX_HOME: '/c' }, '/c'],
    [{ HOME: '/home/u', CODEX_HOME: '' }, '/home/u/.codex'],
    // Codex fails: 'CODEX_HOME points to "  ", but that path does not exist'
    [{ HOME: '/home/u', CODEX_HOME: '  ' }, undefined],
    [{ HOME: '/home/u', CODEX_HOME: 'c' }, undefined],
    [{ HOME: '/home/u', CODEX_HOME: '~/c' }, undefined],
    [{}, join(account, '.codex')],
    // Rust's home: an empty HOME is unset
    [{ HOME: '' }, join(account, '.codex')],
    [{ HOME: 'home/u' }, undefined],
  ],
};
const SETTINGS: Record<HookAgent, string> = {
  claude: 'settings.json',
  gemini: 'settings.json',
  codex: 'hooks.json',
};
const io = (env: NodeJS.ProcessEnv) => ({ env, cwd: '/work/app' }) as unknown as CliIo;

describe("each CLI's home folder, one rule in every place", () => {
  for (const agent of ['claude', 'gemini', 'codex'] as const)
    for (const [env, dir] of CASES[agent])
      it(`${agent} ${JSON.stringify(env)}: ${dir ?? 'refused'}`, () => {
        const settings = () => settingsFileOf(agent, 'user', io(env));
        if (dir === undefined) expect(settings).toThrow(/ is (empty|not an absolute path)/);
        else expect(settings()).toBe(join(dir, SETTINGS[agent]));
        const places = transcriptPlaces(env, '/work/app').map((place) => place.path);
        if (agent === 'claude') {
          expect(claudeProjectsDir(env)).toBe(dir === undefined ? undefined : join(dir, 'projects'));
        } else {
          const folder = agent === 'codex' ? 'sessions' : 'tmp';
          const agentPlaces = places.filter(
            (path) => path.endsWith(`/${folder}`) && !path.startsWith('/work/app'),
          );
          expect(agentPlaces).toEqual(dir === undefined ? [] : [join(dir, folder)]);
        }
        if (agent === 'codex') {
          if (dir === undefined) expect(() => codexHomeOf(env)).toThrow(/ is (empty|not an absolute path)/);
          // init's Codex home is the same folder, and one that CODEX_HOME names must be there (codex71)
          else if (env.CODEX_HOME && !existsSync(dir))
            expect(() => codexHomeOf(env)).toThrow(`CODEX_HOME points to "${dir}", which does not exist`);
          else expect(codexHomeOf(env)).toBe(dir);
        }
      });
});

describe("Claude Code's configuration file (its MCP servers)", () => {
  it('is in $CLAUDE_CONFIG_DIR when that is set and not empty, else ~/.claude.json; a relative one is refused', () => {
    expect(claudeConfigFile({ HOME: '/home/u' })).toBe('/home/u/.claude.json');
    // Claude Code's own rule for this file: an empty variable is unset (`claude mcp add` writes ~/.claude.json)
    expect(claudeConfigFile({ HOME: '/home/u', CLAUDE_CONFIG_DIR: '' })).toBe('/home/u/.claude.json');
    expect(claudeConfigFile({ HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' })).toBe('/cfg/.claude.json');
    expect(claudeConfigFile({ HOME: '' })).toBe(join(account, '.claude.json'));
    for (const config of ['cfg', '  ', '~/cfg'])
      expect(() => claudeConfigFile({ HOME: '/home/u', CLAUDE_CONFIG_DIR: config })).toThrow(
        `CLAUDE_CONFIG_DIR is not an absolute path (${JSON.stringify(config)})`,
      );
  });
});
