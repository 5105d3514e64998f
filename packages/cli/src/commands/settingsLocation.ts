import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { AGENT_FOLDERS, AgentHomeError, agentHomeOf, placedFolder } from '../files/agentHome.js';
import type { HookAgent } from '../hook/hookEvent.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';

/** The file each CLI reads its hooks from, in its settings directory. */
const SETTINGS_FILES: Record<HookAgent, string> = {
  claude: 'settings.json',
  gemini: 'settings.json',
  codex: 'hooks.json',
};
/** A project's settings file of `agent`, relative to the project: `.codex/hooks.json`. */
export function projectSettingsPath(agent: HookAgent): string {
  return join(AGENT_FOLDERS[agent], SETTINGS_FILES[agent]);
}

/** The settings file of `agent` in `scope`: the user's ({@link userSettingsFile}) or the project's, under `io.cwd`. */
export function settingsFileOf(agent: HookAgent, scope: 'user' | 'project', io: CliIo): string {
  return scope === 'user' ? userSettingsFile(agent, io.env) : join(io.cwd, projectSettingsPath(agent));
}

/**
 * The user's settings file, where the CLI itself reads it: in its folder ({@link agentHomeOf}),
 * `settings.json` (Claude Code's, Gemini CLI's) or `hooks.json` (Codex's).
 * @throws CliError naming the variable when that folder is empty or relative
 */
function userSettingsFile(agent: HookAgent, env: NodeJS.ProcessEnv): string {
  try {
    return join(agentHomeOf(agent, env), SETTINGS_FILES[agent]);
  } catch (error) {
    throw error instanceof AgentHomeError ? new CliError(`--user: ${error.message}`) : error;
  }
}

/**
 * Codex's home, where it keeps its trust in hooks (`config.toml`): `$CODEX_HOME`, else `~/.codex`
 * (which Codex makes when missing, and so may `init`). A `CODEX_HOME` that names no folder is
 * refused: Codex 0.169.0 starts nowhere then ('CODEX_HOME points to "…", but that path does not
 * exist'), and the folder `init` made would hide a mistyped name (codex71).
 * @throws CliError naming the variable when it is relative, or names no folder
 */
export function codexHomeOf(env: NodeJS.ProcessEnv): string {
  const home = agentHomeOf('codex', env);
  if (!env.CODEX_HOME) return home;
  const stats = statSync(home, { throwIfNoEntry: false });
  if (stats?.isDirectory() !== true)
    throw new CliError(
      `CODEX_HOME points to ${JSON.stringify(home)}, ${stats === undefined ? 'which does not exist' : 'which is not a folder'}: Codex starts nowhere then; make that folder, or unset CODEX_HOME for ~/.codex`,
    );
  return home;
}

/**
 * Whether the project's settings file of `agent` under `io.cwd` is the user's own (`init` run in
 * the home folder: `~/.claude/settings.json`), which the CLI reads in every folder: a project
 * install there would guard every folder with a project's registration (Claude Code's MCP server
 * registered for the home folder alone, so every other folder's calls unguarded, with a hook error).
 */
export function projectFileIsUsers(agent: HookAgent, io: CliIo): boolean {
  const user = placedFolder(() => agentHomeOf(agent, io.env));
  return user !== undefined && samePath(user, join(io.cwd, AGENT_FOLDERS[agent]));
}

/** Whether two folders are one, through links where they exist. */
function samePath(a: string, b: string): boolean {
  const real = (path: string): string => {
    try {
      return realpathSync(path);
    } catch {
      return path === dirname(path) ? path : join(real(dirname(path)), basename(path));
    }
  };
  return real(resolve(a)) === real(resolve(b));
}
