import { userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { HookAgent } from '../hook/hookEvent.js';
import { CliError } from '../terminal/CliError.js';

/**
 * Where each agent CLI keeps the user's files, read from the same variables as the CLI itself
 * (checked by running Claude Code 2.1.330, Gemini CLI 0.61.0 and Codex 0.169.0; docs/hooks.md,
 * "Where the user's files are"). Each CLI takes its variable's value as it is: not trimmed, no `~`
 * expanded, a relative one from the folder the CLI was started in, which loopguard cannot know; so
 * such a value is an {@link AgentHomeError} here, never a guess.
 */

/** The variable each CLI reads its folder from, before `HOME`. */
export const AGENT_HOME_VARIABLES: Record<HookAgent, string> = {
  claude: 'CLAUDE_CONFIG_DIR',
  gemini: 'GEMINI_CLI_HOME',
  codex: 'CODEX_HOME',
};

/** The folder of each CLI's settings, in a project and under `HOME` (Gemini CLI's under `$GEMINI_CLI_HOME` too). */
export const AGENT_FOLDERS: Record<HookAgent, string> = {
  claude: '.claude',
  gemini: '.gemini',
  codex: '.codex',
};

/** A home folder that loopguard cannot place: the variable is empty or relative. */
export class AgentHomeError extends CliError {
  constructor(variable: string, value: string) {
    const what = value === '' ? 'empty' : `not an absolute path (${JSON.stringify(value)})`;
    super(
      `${variable} is ${what}, so there is no folder to find the agent's files in; set ${variable} to a directory`,
    );
    this.name = 'AgentHomeError';
  }
}

function absolute(value: string, variable: string): string {
  if (!isAbsolute(value)) throw new AgentHomeError(variable, value);
  return value;
}

/** The account's home folder (the password database's), or `undefined` when it has none. */
function accountHome(): string | undefined {
  try {
    return userInfo().homedir;
  } catch {
    return undefined;
  }
}

/**
 * loopguard's own home folder (`~/.loopguard`: the install record, the home's database; the scan
 * cache and the hook's notice marks without their XDG variable): `HOME`; unset or empty, the
 * account's, as Node's `os.homedir()` takes it; a relative `HOME`: `undefined`, never a folder under
 * wherever loopguard was started (a repository's). One rule for every place.
 */
export function loopguardHome(env: NodeJS.ProcessEnv): string | undefined {
  const home = env.HOME;
  if (home === undefined || home === '') return accountHome();
  return isAbsolute(home) ? home : undefined;
}

/**
 * {@link loopguardHome}, for a command that writes there (`init`, `uninstall`).
 * @throws CliError naming `HOME` when it is relative
 */
export function requiredLoopguardHome(env: NodeJS.ProcessEnv): string {
  const home = loopguardHome(env);
  if (home === undefined)
    throw new CliError(
      `HOME is not an absolute path (${JSON.stringify(env.HOME ?? '')}), so there is no folder for loopguard's own files (~/.loopguard); set HOME to a directory`,
    );
  return home;
}

/**
 * The user's home as `agent`'s CLI takes it: `HOME`; unset, the account's (Node's, Bun's and
 * Rust's rule alike). An empty `HOME` is unset to Claude Code (Bun) and Codex (Rust), but the
 * empty path to Gemini CLI (Node's `os.homedir()`).
 * @throws AgentHomeError when it is empty or relative
 */
export function userHomeOf(agent: HookAgent, env: NodeJS.ProcessEnv): string {
  const home = env.HOME;
  if (home === undefined || (home === '' && agent !== 'gemini')) return userInfo().homedir;
  return absolute(home, 'HOME');
}

/**
 * The folder where `agent`'s CLI keeps the user's settings and sessions:
 * - Claude Code: `$CLAUDE_CONFIG_DIR` whenever it is set (empty too: then the CLI's own folder),
 *   else `~/.claude`;
 * - Gemini CLI: `$GEMINI_CLI_HOME/.gemini` when that is not empty, else `~/.gemini`;
 * - Codex: `$CODEX_HOME` when that is not empty, else `~/.codex`.
 * @throws AgentHomeError naming the variable when the folder is empty or relative
 */
export function agentHomeOf(agent: HookAgent, env: NodeJS.ProcessEnv): string {
  const variable = AGENT_HOME_VARIABLES[agent];
  const value = env[variable];
  if (value === undefined || (value === '' && agent !== 'claude'))
    return join(userHomeOf(agent, env), AGENT_FOLDERS[agent]);
  const dir = absolute(value, variable);
  return agent === 'gemini' ? join(dir, AGENT_FOLDERS.gemini) : dir;
}

/**
 * Claude Code's own configuration file, where it reads MCP servers (`claude mcp add` writes
 * there): `$CLAUDE_CONFIG_DIR/.claude.json` when that is set and not empty, else `~/.claude.json`
 * (not in `~/.claude`; an empty `CLAUDE_CONFIG_DIR` is unset here, unlike for its folder).
 * @throws AgentHomeError when the folder is relative
 */
export function claudeConfigFile(env: NodeJS.ProcessEnv): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir
    ? join(absolute(dir, 'CLAUDE_CONFIG_DIR'), '.claude.json')
    : join(userHomeOf('claude', env), '.claude.json');
}

/**
 * `folder()` ({@link agentHomeOf}, {@link userHomeOf}), or undefined when loopguard cannot place it:
 * for a reader (`scan`, the MCP server's trust in a transcript), which then reads nothing there.
 */
export function placedFolder(folder: () => string): string | undefined {
  try {
    return folder();
  } catch (error) {
    if (error instanceof AgentHomeError) return undefined;
    throw error;
  }
}
