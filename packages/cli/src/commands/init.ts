import { chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StepLoopDetector } from '@loopguard/core/steps';
import type { Command } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { readHookConfig } from '../hook/hookConfig.js';
import type { HookAgent } from '../hook/hookEvent.js';
import { commandEntries, hasHooks, hookEventsOf, installHooks, removeHooks } from '../hook/hookSettings.js';
import { lineDiff } from '../hook/lineDiff.js';
import { readSettingsFile, writeSettingsFile } from '../hook/settingsFile.js';
import {
  InvalidSettingsError,
  readSettingsText,
  type SettingsText,
  settingsFileText,
} from '../hook/settingsText.js';
import { ensureResidentConfig, residentHome } from '../resident/residentConfig.js';
import { residentEntries } from '../resident/residentEntries.js';
import { type InitSpendFlags, initSpendOf, writeSpendSection } from './initSpend.js';

interface InitOptions extends InitSpendFlags {
  user?: boolean;
  project?: boolean;
  dryRun?: boolean;
  remove?: boolean;
  command?: string;
  timeout: string;
  resident?: boolean;
}

const CLI_NAMES: Record<HookAgent, string> = { claude: 'Claude Code', gemini: 'Gemini CLI' };
const SETTINGS_DIRS: Record<HookAgent, string> = { claude: '.claude', gemini: '.gemini' };
/** The variable each CLI reads its user settings directory from before `HOME`. */
const USER_DIR_VARIABLES: Record<HookAgent, string> = {
  claude: 'CLAUDE_CONFIG_DIR',
  gemini: 'GEMINI_CLI_HOME',
};

/**
 * The shell command that runs this loopguard: this node and the `loopguard` command it was started
 * as (the one `scripts/install.sh` links, which stays valid across re-installs), else this
 * package's `bin.js`; quoted.
 */
export function defaultHookCommand(): string {
  const started = process.argv[1];
  const bin =
    started !== undefined && basename(started) === 'loopguard'
      ? started
      : join(dirname(fileURLToPath(import.meta.url)), '..', 'bin.js');
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  return `${quote(process.execPath)} ${quote(bin)}`;
}

/**
 * `loopguard init claude|gemini [--user|--project] [--dry-run] [--remove]`: merges loopguard's
 * hook entries into the CLI's settings file (`.claude/settings.json`, `.gemini/settings.json`, or
 * the user's under `~`), keeping every other key and hook; writes a backup first; idempotent.
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
      '--resident',
      "claude only: answer its hooks from one resident process of the user (http hooks, in the user's settings file)",
    )
    .option(
      '--spend',
      'write the spend guard into loopguard.config.yaml: $10 a session, warned at 80 % (docs/spend.md)',
    )
    .option('--max-cost-usd <usd>', "the spend guard's cap per session in US dollars (implies --spend)")
    .option('--max-tokens <n>', "the spend guard's cap per session in tokens (implies --spend)")
    .action(async (agent: string, options: InitOptions) => {
      if (agent !== 'claude' && agent !== 'gemini') {
        throw new CliError(`agent must be claude or gemini, got ${JSON.stringify(agent)}`);
      }
      if (options.resident && agent !== 'claude')
        throw new CliError('--resident is for claude: Gemini CLI runs only command hooks');
      if (options.resident && options.project)
        throw new CliError(
          "--resident installs in the user's settings file (one process per user), not --project",
        );
      if (options.user && options.project) throw new CliError('--user and --project cannot be used together');
      if (options.resident) options.user = true;
      const timeout = Number(options.timeout);
      if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600) {
        throw new CliError(
          `--timeout must be an integer from 1 to 600 seconds, got ${JSON.stringify(options.timeout)}`,
        );
      }
      const file = options.user
        ? userSettingsFile(agent, io.env)
        : join(io.cwd, SETTINGS_DIRS[agent], 'settings.json');
      const shown = (path: string) => (options.user ? path : relative(io.cwd, path) || '.');
      const found = readSettingsFile(file, shown);
      const settings = parseSettings(found.text ?? '', agent, shown(file));
      const spend = options.remove ? undefined : initSpendOf(options);
      if (spend !== undefined) {
        const written = writeSpendSection(io.cwd, spend, options.dryRun === true);
        const where = relative(io.cwd, written.file);
        io.stdout(
          options.dryRun
            ? `${where}: would set\n${written.text}`
            : `${where}: spend guard set (docs/spend.md)\n`,
        );
        if (agent === 'gemini')
          io.stdout(
            "note: Gemini CLI's hooks carry no usage; the budget applies to it through loopguard run --agent-stream gemini\n",
          );
      }
      if (!options.remove) await checkProjectConfig(io.cwd);
      const loopguard = options.command ?? defaultHookCommand();
      const resident =
        options.resident && !options.remove
          ? await ensureResidentConfig(residentHome(io.env), { save: !options.dryRun })
          : undefined;
      const plan =
        resident === undefined
          ? commandEntries(agent, `${loopguard} hook ${agent}`, timeout)
          : residentEntries(resident, loopguard, timeout);
      const next = options.remove
        ? removeHooks(settings)
        : editSettings(() => installHooks(settings, plan), shown(file));
      const before = found.text ?? '';
      const after = settingsFileText(next);
      if (options.remove ? !hasHooks(settings) : after === found.text) {
        io.stdout(
          `${shown(file)}: ${options.remove ? 'no loopguard hooks to remove' : 'loopguard hooks already installed'}\n`,
        );
        return;
      }
      if (options.dryRun) {
        io.stdout(lineDiff(before, after, shown(file)));
        return;
      }
      const backup = writeSettingsFile(found, after, shown);
      // The resident's token is in the file: readable by the user only.
      if (resident !== undefined) chmodSync(file, 0o600);
      const backupNote = backup === undefined ? '' : `; backup in ${shown(backup)}`;
      const residentNote =
        resident === undefined ? '' : ` through the resident process on 127.0.0.1:${resident.port}`;
      io.stdout(
        options.remove
          ? `${shown(file)}: removed loopguard's ${CLI_NAMES[agent]} hooks${backupNote}\n`
          : `${shown(file)}: loopguard guards ${CLI_NAMES[agent]} on ${hookEventsOf(agent).join(', ')}${residentNote}${backupNote}\n`,
      );
    });
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
