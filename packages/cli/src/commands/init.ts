import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StepLoopDetector } from '@loopguard/core/steps';
import type { Command } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { readHookConfig } from '../hook/hookConfig.js';
import type { HookAgent } from '../hook/hookEvent.js';
import {
  commandEntries,
  hasHooks,
  hookEventsOf,
  installHooks,
  ownsFile,
  removeHooks,
  removeStrayHooks,
  strayHooks,
} from '../hook/hookSettings.js';
import { updateInstalls } from '../hook/installRecord.js';
import { lineDiff } from '../hook/lineDiff.js';
import {
  type FoundSettingsFile,
  readSettingsFile,
  removeSettingsFile,
  writeSettingsFile,
} from '../hook/settingsFile.js';
import {
  InvalidSettingsError,
  readSettingsText,
  type SettingsText,
  settingsFileText,
} from '../hook/settingsText.js';
import { shellQuote, snapshotHookCommand, usableHookSnapshot } from '../hook/snapshotCommand.js';
import {
  claudeConfigFile,
  mcpServerEntry,
  mcpToolEntries,
  serverPath,
  withServer,
} from '../mcp/mcpRegistration.js';
import { type InitSpendFlags, initSpendOf, writeSpendSection } from './initSpend.js';

/** The options of `loopguard init` (and of `loopguard uninstall`, which runs it with `remove`). */
export interface InitOptions extends InitSpendFlags {
  user?: boolean;
  project?: boolean;
  dryRun?: boolean;
  remove?: boolean;
  command?: string;
  timeout: string;
  commandHooks?: boolean;
  replace?: boolean;
}

const CLI_NAMES: Record<HookAgent, string> = { claude: 'Claude Code', gemini: 'Gemini CLI' };
const SETTINGS_DIRS: Record<HookAgent, string> = { claude: '.claude', gemini: '.gemini' };
/** The variable each CLI reads its user settings directory from before `HOME`. */
const USER_DIR_VARIABLES: Record<HookAgent, string> = {
  claude: 'CLAUDE_CONFIG_DIR',
  gemini: 'GEMINI_CLI_HOME',
};

/**
 * This loopguard: this node and the `loopguard` command it was started as (the one
 * `scripts/install.sh` links, which stays valid across re-installs), else this package's `bin.js`.
 */
function loopguardArgv(): [node: string, bin: string] {
  const started = process.argv[1];
  const bin =
    started !== undefined && basename(started) === 'loopguard'
      ? started
      : join(dirname(fileURLToPath(import.meta.url)), '..', 'bin.js');
  return [process.execPath, bin];
}

/** The shell command that runs this loopguard ({@link loopguardArgv}), quoted. */
export function defaultHookCommand(): string {
  return loopguardArgv().map(shellQuote).join(' ');
}

/**
 * The hook command `init` writes: `--command`'s, else this loopguard's, started from the hook's
 * startup snapshot when this node loads it (see {@link snapshotHookCommand}).
 */
function hookCommandOf(agent: HookAgent, command: string | undefined): string {
  if (command !== undefined) return `${command} hook ${agent}`;
  const argv = loopguardArgv();
  const blob = usableHookSnapshot(...argv);
  return blob === undefined
    ? `${defaultHookCommand()} hook ${agent}`
    : snapshotHookCommand(argv, blob, agent);
}

/**
 * `loopguard init claude|gemini [--user|--project] [--dry-run] [--remove] [--replace]`: merges
 * loopguard's hook entries into the CLI's settings file (`.claude/settings.json`,
 * `.gemini/settings.json`, or the user's under `~`), keeping every other key and hook; keeps one
 * backup; idempotent. For Claude Code the entries are `mcp_tool` hooks of loopguard's MCP server
 * (registered in Claude Code's `~/.claude.json`), unless `--command-hooks`.
 * @example loopguard init claude --project --dry-run
 */
export function registerInitCommand(program: Command, io: CliIo): void {
  program
    .command('init')
    .description("Install loopguard's hooks in Claude Code's or Gemini CLI's settings (see docs/hooks.md).")
    .argument('<agent>', 'claude or gemini')
    .option('--project', "the project's settings file, in the current directory (default)")
    .option(
      '--user',
      "the user's settings file ($CLAUDE_CONFIG_DIR, $GEMINI_CLI_HOME/.gemini, else under HOME)",
    )
    .option('--dry-run', 'print the change as a diff and write nothing')
    .option('--remove', "take loopguard's hooks out again")
    .option('--command <command>', 'the command that runs loopguard (default: this node and this loopguard)')
    .option('--timeout <seconds>', 'how long the CLI lets one hook call run', '10')
    .option(
      '--command-hooks',
      'claude: a loopguard process per hook call instead of the MCP server (for Claude Code before 2.1.118)',
    )
    .option(
      '--replace',
      'also take out loopguard hooks init did not mark here, and loopguard hooks of the other scope',
    )
    .option(
      '--spend',
      'write the spend guard into loopguard.config.yaml: $10 a session, warned at 80 %; a budget already there is kept (docs/spend.md)',
    )
    .option('--max-cost-usd <usd>', "the spend guard's cap per session in US dollars (implies --spend)")
    .option('--max-tokens <n>', "the spend guard's cap per session in tokens (implies --spend)")
    .action(async (agent: string, options: InitOptions) => {
      if (agent !== 'claude' && agent !== 'gemini') {
        throw new CliError(`agent must be claude or gemini, got ${JSON.stringify(agent)}`);
      }
      if (options.user && options.project) throw new CliError('--user and --project cannot be used together');
      await initHooks(agent, options, io);
    });
}

/**
 * One `init` (or `init --remove`) of `agent` in `io.cwd`'s project or the user's settings.
 * @throws CliError on bad options or a settings file it refuses (nothing written).
 */
export async function initHooks(agent: HookAgent, options: InitOptions, io: CliIo): Promise<void> {
  const timeout = Number(options.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600) {
    throw new CliError(
      `--timeout must be an integer from 1 to 600 seconds, got ${JSON.stringify(options.timeout)}`,
    );
  }
  const home = homeOf(io.env);
  const scope = options.user ? 'user' : 'project';
  const file = settingsFileOf(agent, scope, io);
  const shown = (path: string) =>
    options.user || !path.startsWith(io.cwd) ? path : relative(io.cwd, path) || '.';
  const found = readSettingsFile(file, shown);
  const settings = parseSettings(found.text ?? '', agent, shown(file));
  const spend = options.remove ? undefined : initSpendOf(options);
  if (spend !== undefined) {
    const amounts = options.maxCostUsd !== undefined || options.maxTokens !== undefined;
    const written = writeSpendSection(io.cwd, spend, amounts, options.dryRun === true);
    const where = relative(io.cwd, written.file);
    io.stdout(
      written.kept
        ? `${where}: spend guard kept: ${written.budgets} (--max-cost-usd <usd> or --max-tokens <n> changes it)\n`
        : options.dryRun
          ? `${where}: would set ${written.budgets}\n${written.text}`
          : `${where}: spend guard set (docs/spend.md): ${written.budgets}\n`,
    );
  }
  if (!options.remove) await checkProjectConfig(io.cwd);
  const fast = agent === 'claude' && !options.commandHooks;
  const plan = fast
    ? mcpToolEntries(timeout)
    : commandEntries(agent, hookCommandOf(agent, options.command), timeout);
  let next = options.remove
    ? removeHooks(settings)
    : editSettings(() => installHooks(settings, plan, (found.text ?? '').trim() === ''), shown(file));
  const strays = strayHooks(next);
  if (options.replace) next = removeStrayHooks(next);
  else if (strays.length > 0)
    io.stdout(
      `${shown(file)}: also holds loopguard hooks that init did not write (${strays.join('; ')}): every call would reach loopguard twice; loopguard init ${agent}${options.user ? ' --user' : ''} --replace takes them out\n`,
    );
  await otherScope(agent, scope, options, io);
  const server =
    agent === 'claude'
      ? serverChange(options, fast, scope === 'user' ? undefined : io.cwd, io, home)
      : undefined;
  const before = found.text ?? '';
  const after = settingsFileText(next);
  const edited = options.remove
    ? hasHooks(settings) || (options.replace === true && strays.length > 0)
    : after !== before;
  const unchanged = !edited && server === undefined;
  if (unchanged) {
    io.stdout(
      `${shown(file)}: ${options.remove ? 'no loopguard hooks to remove' : 'loopguard hooks already installed'}\n`,
    );
    return;
  }
  if (options.dryRun) {
    if (edited) io.stdout(lineDiff(before, after, shown(file)));
    if (server !== undefined) io.stdout(lineDiff(server.found.text ?? '', server.text, server.file));
    return;
  }
  const record = { agent, project: scope === 'user' ? null : io.cwd };
  if (server !== undefined) writeSettingsFile(server.found, server.text, (path) => path);
  let backupNote = '';
  if (edited) {
    if (options.remove && ownsFile(settings) && after.trim() === '{}') removeSettingsFile(found, shown);
    else {
      const backup = writeSettingsFile(found, after, shown);
      backupNote = backup === undefined ? '' : `; backup in ${shown(backup)}`;
    }
  }
  updateInstalls(home, record, !options.remove);
  const how = fast ? " through loopguard's MCP server (mcp_tool hooks)" : ' (command hooks)';
  io.stdout(
    options.remove
      ? `${shown(file)}: removed loopguard's ${CLI_NAMES[agent]} hooks${backupNote}\n`
      : `${shown(file)}: loopguard guards ${CLI_NAMES[agent]} on ${hookEventsOf(agent).join(', ')}${how}${backupNote}\n`,
  );
}

/**
 * Claude Code's `~/.claude.json` with loopguard's MCP server added (the fast path) or taken out
 * (`--remove`, `--command-hooks`), or `undefined` when it is as wanted already.
 */
function serverChange(
  options: InitOptions,
  fast: boolean,
  projectDir: string | undefined,
  io: CliIo,
  home: string,
): { found: FoundSettingsFile; text: string; file: string } | undefined {
  const file = claudeConfigFile(io.env, home);
  const found = readSettingsFile(file, (path) => path);
  const path = serverPath(projectDir);
  const wanted = fast && !options.remove;
  const entry = mcpServerEntry(options.command ?? loopguardArgv());
  let text: string;
  try {
    text = withServer(found.text ?? '', path, wanted ? entry : undefined);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON (${(error as Error).message}); nothing written`);
  }
  return text === (found.text ?? '') ? undefined : { found, text, file };
}

/**
 * Loopguard hooks in the other scope (the user's settings for a project, a project's for the
 * user) reach loopguard a second time on every call (counted once): said, or with `--replace`
 * taken out there.
 */
async function otherScope(agent: HookAgent, scope: 'user' | 'project', options: InitOptions, io: CliIo) {
  if (options.remove) return;
  let file: string;
  try {
    file = settingsFileOf(agent, scope === 'user' ? 'project' : 'user', io);
  } catch {
    return;
  }
  if (file === settingsFileOf(agent, scope, io)) return;
  let found: FoundSettingsFile;
  let other: SettingsText;
  try {
    found = readSettingsFile(file, (path) => path);
    other = readSettingsText(found.text ?? '', agent);
  } catch {
    return;
  }
  if (!hasHooks(other) && strayHooks(other).length === 0) return;
  if (!options.replace || options.dryRun) {
    io.stdout(
      `${file} also runs loopguard's hooks: every call reaches loopguard twice (counted once); --replace takes them out there\n`,
    );
    return;
  }
  const cleaned = settingsFileText(removeStrayHooks(removeHooks(other)));
  writeSettingsFile(found, cleaned, (path) => path);
  io.stdout(`${file}: removed loopguard's hooks (--replace)\n`);
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

function settingsFileOf(agent: HookAgent, scope: 'user' | 'project', io: CliIo): string {
  return scope === 'user'
    ? userSettingsFile(agent, io.env)
    : join(io.cwd, SETTINGS_DIRS[agent], 'settings.json');
}

/**
 * The user's settings file, where the CLI itself reads it: `$CLAUDE_CONFIG_DIR/settings.json` or
 * `$GEMINI_CLI_HOME/.gemini/settings.json` when that variable is set, else under `HOME`.
 */
function userSettingsFile(agent: HookAgent, env: NodeJS.ProcessEnv): string {
  const variable = USER_DIR_VARIABLES[agent];
  const override = env[variable]?.trim();
  if (override) {
    const dir = absolute(override, variable);
    return agent === 'claude' ? join(dir, 'settings.json') : join(dir, '.gemini', 'settings.json');
  }
  return join(absolute(env.HOME ?? homedir(), 'HOME'), SETTINGS_DIRS[agent], 'settings.json');
}

function absolute(path: string, variable: string): string {
  if (isAbsolute(path)) return path;
  const what = path === '' ? 'empty' : `not an absolute path (${JSON.stringify(path)})`;
  throw new CliError(
    `--user: ${variable} is ${what}, so there is no user settings file; set ${variable} to a directory`,
  );
}

function parseSettings(text: string, agent: HookAgent, shown: string): SettingsText {
  return editSettings(() => readSettingsText(text, agent), shown);
}

/** Runs `edit`, reporting a settings file it refuses as one line naming the file. */
function editSettings<T>(edit: () => T, shown: string): T {
  try {
    return edit();
  } catch (error) {
    if (error instanceof InvalidSettingsError)
      throw new CliError(`${shown} ${error.message}; nothing written`);
    throw error;
  }
}

/** A bad `hook` section in the project's configuration is reported now, not at every hook call. */
async function checkProjectConfig(cwd: string): Promise<void> {
  try {
    new StepLoopDetector((await readHookConfig(cwd)).detector);
  } catch (error) {
    throw new CliError(`${(error as Error).message}; nothing written`);
  }
}
