import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import type { HookAgent } from '../hook/hookEvent.js';

/** The folder of each CLI's settings, in the project and under `HOME`. */
const SETTINGS_DIRS: Record<HookAgent, string> = { claude: '.claude', gemini: '.gemini', codex: '.codex' };
/** The file each CLI reads its hooks from, in its settings directory. */
const SETTINGS_FILES: Record<HookAgent, string> = {
  claude: 'settings.json',
  gemini: 'settings.json',
  codex: 'hooks.json',
};
/** The variable each CLI reads its user settings directory from before `HOME`. */
const USER_DIR_VARIABLES: Record<HookAgent, string> = {
  claude: 'CLAUDE_CONFIG_DIR',
  gemini: 'GEMINI_CLI_HOME',
  codex: 'CODEX_HOME',
};

/** A project's settings file of `agent`, relative to the project: `.codex/hooks.json`. */
export function projectSettingsPath(agent: HookAgent): string {
  return join(SETTINGS_DIRS[agent], SETTINGS_FILES[agent]);
}

/** The user's home folder: `HOME`, else the OS's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

/** The settings file of `agent` in `scope`: the user's ({@link userSettingsFile}) or the project's, under `io.cwd`. */
export function settingsFileOf(agent: HookAgent, scope: 'user' | 'project', io: CliIo): string {
  return scope === 'user' ? userSettingsFile(agent, io.env) : join(io.cwd, projectSettingsPath(agent));
}

/**
 * The user's settings file, where the CLI itself reads it: `$CLAUDE_CONFIG_DIR/settings.json`,
 * `$GEMINI_CLI_HOME/.gemini/settings.json` or `$CODEX_HOME/hooks.json` when that variable is set,
 * else under `HOME`.
 */
function userSettingsFile(agent: HookAgent, env: NodeJS.ProcessEnv): string {
  const variable = USER_DIR_VARIABLES[agent];
  const override = env[variable]?.trim();
  if (override) {
    const dir = absolute(override, variable);
    return agent === 'gemini' ? join(dir, '.gemini', 'settings.json') : join(dir, SETTINGS_FILES[agent]);
  }
  return join(absolute(env.HOME ?? homedir(), 'HOME'), SETTINGS_DIRS[agent], SETTINGS_FILES[agent]);
}

function absolute(path: string, variable: string): string {
  if (isAbsolute(path)) return path;
  const what = path === '' ? 'empty' : `not an absolute path (${JSON.stringify(path)})`;
  throw new CliError(
    `--user: ${variable} is ${what}, so there is no user settings file; set ${variable} to a directory`,
  );
}

/**
 * Codex's home, where it keeps its trust in hooks (`config.toml`): `$CODEX_HOME`, else `~/.codex`.
 * @throws CliError naming the variable when it is not an absolute path.
 */
export function codexHomeOf(env: NodeJS.ProcessEnv): string {
  const override = env.CODEX_HOME?.trim();
  const [path, variable] = override ? [override, 'CODEX_HOME'] : [env.HOME ?? homedir(), 'HOME'];
  if (!isAbsolute(path))
    throw new CliError(
      `${variable} is not an absolute path (${JSON.stringify(path)}), so there is no Codex home to read its trust in the hooks from; set ${variable} to a directory`,
    );
  return override ? path : join(path, '.codex');
}
