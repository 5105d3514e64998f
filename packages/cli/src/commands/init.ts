import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StepLoopDetector } from '@loopguard/core/steps';
import type { Command } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { readHookConfig } from '../hook/hookConfig.js';
import type { HookAgent } from '../hook/hookEvent.js';
import { addHooks, hookEventsOf, removeHooks, type Settings } from '../hook/hookSettings.js';
import { lineDiff } from '../hook/lineDiff.js';

interface InitOptions {
  user?: boolean;
  project?: boolean;
  dryRun?: boolean;
  remove?: boolean;
  command?: string;
  timeout: string;
}

const CLI_NAMES: Record<HookAgent, string> = { claude: 'Claude Code', gemini: 'Gemini CLI' };
const SETTINGS_DIRS: Record<HookAgent, string> = { claude: '.claude', gemini: '.gemini' };

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
    .option('--user', "the user's settings file, under the home directory")
    .option('--dry-run', 'print the change as a diff and write nothing')
    .option('--remove', "take loopguard's hooks out again")
    .option('--command <command>', 'the command that runs loopguard (default: this node and this loopguard)')
    .option('--timeout <seconds>', 'how long the CLI lets one hook call run', '10')
    .action(async (agent: string, options: InitOptions) => {
      if (agent !== 'claude' && agent !== 'gemini') {
        throw new CliError(`agent must be claude or gemini, got ${JSON.stringify(agent)}`);
      }
      if (options.user && options.project) throw new CliError('--user and --project cannot be used together');
      const timeout = Number(options.timeout);
      if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600) {
        throw new CliError(
          `--timeout must be an integer from 1 to 600 seconds, got ${JSON.stringify(options.timeout)}`,
        );
      }
      const home = io.env.HOME ?? homedir();
      const file = join(options.user ? home : io.cwd, SETTINGS_DIRS[agent], 'settings.json');
      const shown = options.user ? file : relative(io.cwd, file);
      const before = existsSync(file) ? readFileSync(file, 'utf8') : null;
      const settings = parseSettings(before, shown);
      if (!options.remove) await checkProjectConfig(io.cwd);
      const command = `${options.command ?? defaultHookCommand()} hook ${agent}`;
      const next = options.remove
        ? removeHooks(settings, agent)
        : addHooks(settings, agent, command, timeout);
      const after = `${JSON.stringify(next, null, 2)}\n`;
      const unchanged = before !== null ? JSON.stringify(settings) === JSON.stringify(next) : options.remove;
      if (unchanged) {
        io.stdout(
          `${shown}: ${options.remove ? 'no loopguard hooks to remove' : 'loopguard hooks already installed'}\n`,
        );
        return;
      }
      if (options.dryRun) {
        io.stdout(lineDiff(before ?? '', after, shown));
        return;
      }
      mkdirSync(dirname(file), { recursive: true });
      let backup = '';
      if (before !== null) {
        const path = `${file}.loopguard-backup-${Date.now()}`;
        copyFileSync(file, path);
        backup = `; backup in ${options.user ? path : relative(io.cwd, path)}`;
      }
      writeFileSync(file, after);
      io.stdout(
        options.remove
          ? `${shown}: removed loopguard's ${CLI_NAMES[agent]} hooks${backup}\n`
          : `${shown}: loopguard guards ${CLI_NAMES[agent]} on ${hookEventsOf(agent).join(', ')}${backup}\n`,
      );
    });
}

function parseSettings(text: string | null, shown: string): Settings {
  if (text === null || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${shown} is not valid JSON (${(error as Error).message}); nothing written`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CliError(`${shown} must hold a JSON object; nothing written`);
  }
  return parsed as Settings;
}

/** A bad `hook` section in the project's configuration is reported now, not at every hook call. */
async function checkProjectConfig(cwd: string): Promise<void> {
  try {
    new StepLoopDetector((await readHookConfig(cwd)).detector);
  } catch (error) {
    throw new CliError(`${(error as Error).message}; nothing written`);
  }
}
