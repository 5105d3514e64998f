import { existsSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { type Command, Option } from 'commander';
import { claudeConfigFile, requiredLoopguardHome } from '../files/agentHome.js';
import { gitTracks } from '../files/gitTracks.js';
import { checkedHookConfig } from '../hook/checkedHookConfig.js';
import { CLI_NAMES, type HookAgent } from '../hook/hookEvent.js';
import { unknownHookSwitch } from '../hook/hookSwitch.js';
import { projectHookSettings } from '../hook/projectHookSettings.js';
import { codexTrust } from '../install/codexTrust.js';
import {
  commandEntries,
  hasHooks,
  hookEventsOf,
  installHooks,
  ownsFolder,
  removeHooks,
  removeStrayHooks,
  strayHooks,
} from '../install/hookSettings.js';
import { installsFile, updateInstalls } from '../install/installRecord.js';
import { lineDiff } from '../install/lineDiff.js';
import { mcpToolEntries } from '../install/mcpRegistration.js';
import { readSettingsFile, removeSettingsFile, writeSettingsFile } from '../install/settingsFile.js';
import { settingsFileText } from '../install/settingsText.js';
import {
  STATUS_LINE_REFRESH_SECONDS,
  type StatusLineChange,
  withStatusLine,
} from '../install/statusLineSettings.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { printable } from '../terminal/terminalText.js';
import { editSettings, parseSettings } from './editSettings.js';
import type { InitOptions } from './initOptions.js';
import { DEFAULT_INIT_SPEND_WORDS, initSpendOf, writeSpendSection } from './initSpend.js';
import { type InitStep, madeByInit, runSteps } from './initSteps.js';
import { switchedOffBy } from './initSwitchedOff.js';
import { hookCommandOf, statusLineCommandOf } from './loopguardCommand.js';
import { otherScope } from './otherScope.js';
import { serverChange } from './serverChange.js';
import { codexHomeOf, projectFileIsUsers, projectSettingsPath, settingsFileOf } from './settingsLocation.js';

const AGENTS: readonly HookAgent[] = ['claude', 'gemini', 'codex'];

/** How long, in seconds, the agent CLI lets one hook call run unless `--timeout` says. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 10;

/**
 * `loopguard init claude|gemini|codex [--user|--project] [--dry-run] [--remove] [--replace]`: merges
 * loopguard's hook entries into the CLI's settings file (`.claude/settings.json`,
 * `.gemini/settings.json`, `.codex/hooks.json`, or the user's), keeping every other key and hook; keeps one
 * backup; idempotent. For Claude Code the entries are `mcp_tool` hooks of loopguard's MCP server
 * (registered in Claude Code's `~/.claude.json`), unless `--command-hooks`.
 * @example loopguard init claude --project --dry-run
 */
export function registerInitCommand(program: Command, io: CliIo): void {
  program
    .command('init')
    .description(
      "Install loopguard's hooks in Claude Code's, Gemini CLI's or Codex's settings (see docs/hooks.md).",
    )
    .argument('<agent>', 'claude, gemini or codex')
    .option('--project', "the project's settings file, in the current directory (default)")
    .option(
      '--user',
      "the user's settings file ($CLAUDE_CONFIG_DIR, $GEMINI_CLI_HOME/.gemini, $CODEX_HOME, else under HOME)",
    )
    .option('--dry-run', 'print the change as a diff and write nothing')
    .option('--remove', "take loopguard's hooks out again")
    .option('--command <command>', 'the command that runs loopguard (default: this node and this loopguard)')
    .addOption(
      new Option('--timeout <seconds>', 'how long the CLI lets one hook call run').default(
        String(DEFAULT_HOOK_TIMEOUT_SECONDS),
        String(DEFAULT_HOOK_TIMEOUT_SECONDS),
      ),
    )
    .option(
      '--command-hooks',
      'claude: a loopguard process per hook call instead of the MCP server (for Claude Code before 2.1.118)',
    )
    .option(
      '--replace',
      "also take out loopguard hooks init did not mark here, and loopguard hooks of the other scope; with --status-line, replace the user's status line",
    )
    .option(
      '--status-line',
      "Claude Code: show what loopguard did to the session in Claude Code's status line (loopguard statusline)",
    )
    .option(
      '--spend',
      `write the spend guard into loopguard.config.yaml: ${DEFAULT_INIT_SPEND_WORDS}; a budget already there is kept (docs/spend.md)`,
    )
    .option('--max-cost-usd <usd>', "the spend guard's cap per session in US dollars (implies --spend)")
    .option('--max-tokens <n>', "the spend guard's cap per session in tokens (implies --spend)")
    .action(async (agent: string, options: InitOptions) => {
      if (!AGENTS.includes(agent as HookAgent)) {
        throw new CliError(`agent must be claude, gemini or codex, got ${JSON.stringify(agent)}`);
      }
      if (options.user && options.project) throw new CliError('--user and --project cannot be used together');
      await initHooks(agent as HookAgent, options, io);
    });
}

/**
 * One `init` (or `init --remove`) of `agent` in `io.cwd`'s project or the user's settings. Every
 * file is checked before any is written; the writes then go in the order that never leaves
 * loopguard's MCP server registered without the settings holding its hooks (whose `PreToolUse`
 * hook refuses the model's own call of it), and a failed write puts back the files written
 * before it. Each file changed is named, with how to undo it.
 * @throws CliError on bad options or a file it refuses (nothing written).
 */
export async function initHooks(agent: HookAgent, options: InitOptions, io: CliIo): Promise<void> {
  const timeout = Number(options.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600) {
    throw new CliError(
      `--timeout must be an integer from 1 to 600 seconds, got ${JSON.stringify(options.timeout)}`,
    );
  }
  // an empty command wrote " hook codex": hooks that fail at every call (qa70)
  if (options.command !== undefined && options.command.trim() === '')
    throw new CliError(
      `--command is empty (got ${JSON.stringify(options.command)}): give the command that runs loopguard (--command loopguard), or leave --command out for this loopguard`,
    );
  // it was ignored: the user was left waiting for a status line the CLI never shows (qa70)
  if (options.statusLine && agent !== 'claude')
    throw new CliError(
      `--status-line is for Claude Code only (its statusLine setting runs loopguard statusline): ${CLI_NAMES[agent]} runs no status line of loopguard; loopguard status says what loopguard did to each of its sessions`,
    );
  // where Codex keeps its trust in the hooks: checked before anything is written
  const codexHome = agent === 'codex' && !options.remove ? codexHomeOf(io.env) : undefined;
  const scope = options.user ? 'user' : 'project';
  const file = settingsFileOf(agent, scope, io);
  if (scope === 'project' && !options.remove && projectFileIsUsers(agent, io))
    throw new CliError(
      `${file} is ${CLI_NAMES[agent]}'s settings file for every folder (${io.cwd} is the home folder): loopguard init ${agent} --user guards every folder; or run init in a project's folder`,
    );
  const home = requiredLoopguardHome(io.env);
  const from = options.shownFrom ?? io.cwd;
  const shown = (path: string) =>
    options.user || (path !== from && !path.startsWith(`${from}${sep}`)) ? path : relative(from, path) || '.';
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
  const command = hookCommandOf(agent, options.command);
  const plan = fast ? mcpToolEntries(timeout, command) : commandEntries(agent, command, timeout);
  const blank = (found.text ?? '').trim() === '';
  const newFile = !blank ? false : found.stats === null && !existsSync(dirname(file)) ? 'folder' : true;
  let next = options.remove
    ? removeHooks(settings)
    : editSettings(() => installHooks(settings, plan, newFile), shown(file));
  const strays = strayHooks(next);
  if (options.replace) next = removeStrayHooks(next);
  else if (strays.length > 0)
    io.stdout(
      `${shown(file)}: also holds loopguard hooks that init did not write (${strays.join('; ')}): every call would reach loopguard twice; loopguard init ${agent}${options.user ? ' --user' : ''} --replace takes them out\n`,
    );
  // Claude Code's status line: where the user looks, what loopguard did to this session (asked for
  // with --status-line; --remove takes loopguard's out).
  const statusLine =
    agent === 'claude' && (options.remove || options.statusLine)
      ? withStatusLine(
          next,
          options.remove ? undefined : statusLineCommandOf(options.command),
          options.replace === true,
        )
      : { settings: next, change: agent === 'claude' ? ('offer' as const) : ('none' as const) };
  next = statusLine.settings;
  const other = otherScope(agent, scope, options, io);
  const project = scope === 'user' ? null : io.cwd;
  const server =
    agent === 'claude'
      ? serverChange(options, fast, project, other === undefined ? undefined : other.project, io, home)
      : undefined;
  const before = found.text ?? '';
  const after = settingsFileText(next);
  const edited = options.remove
    ? hasHooks(settings) || (options.replace === true && strays.length > 0) || statusLine.change === 'removed'
    : after !== before;
  // what would keep the hooks just written from guarding: the project's off switches, Codex's trust
  // what the project's file changes in the guard: a cloned repository's exemptions (trust52), the
  // dry run's reader too (sessions60)
  const saySettings = () => {
    const changed = scope === 'user' || options.remove ? undefined : projectHookSettings(io.cwd);
    if (changed !== undefined) io.stdout(`${printable(`hooks: ${changed}`)}\n`);
  };
  const sayWhatStops = () => {
    const projectDir = scope === 'user' ? undefined : io.cwd;
    const off = saySwitchedOff(
      agent,
      { shown: shown(file), text: after },
      projectDir,
      options,
      io,
      codexHome,
    );
    sayCodexTrust(file, after, codexHome, projectDir, io, off);
    saySettings();
  };
  if (!edited && server?.change === undefined && other === undefined) {
    if (options.remove && options.untouched !== undefined)
      options.untouched(shown(file), found.text !== null);
    else
      io.stdout(
        `${shown(file)}: ${options.remove ? 'no loopguard hooks to remove' : 'loopguard hooks already installed'}\n`,
      );
    if (!options.remove && !options.dryRun) updateInstalls(home, { agent, project, ...server?.record }, true);
    sayWhatStops();
    return;
  }
  if (options.dryRun) {
    if (edited) io.stdout(lineDiff(before, after, shown(file)));
    if (other !== undefined) io.stdout(lineDiff(other.found.text ?? '', other.text, other.file));
    if (server?.change !== undefined)
      io.stdout(lineDiff(server.change.found.text ?? '', server.change.text, server.change.file));
    saySettings();
    return;
  }
  const notes: string[] = [];
  // a settings file init made and now removes is said once: what went with it (its status line) is in it
  let fileRemoved = false;
  const settingsStep: InitStep = () => {
    if (madeByInit(settings, after)) {
      fileRemoved = true;
      notes.push(`${shown(file)}: removed (init had made it)`);
      return removeSettingsFile(found, shown, ownsFolder(settings));
    }
    const written = writeSettingsFile(found, after, shown);
    const how = fast ? " through loopguard's MCP server (mcp_tool hooks)" : ' (command hooks)';
    const backup = written.backup === undefined ? '' : `; backup in ${shown(written.backup)}`;
    notes.push(
      options.remove
        ? `${shown(file)}: removed loopguard's ${CLI_NAMES[agent]} hooks${backup}`
        : `${shown(file)}: loopguard guards ${CLI_NAMES[agent]} on ${hookEventsOf(agent).join(', ')}${how}${backup}`,
    );
    return written;
  };
  const steps: InitStep[] = edited ? [settingsStep] : [];
  if (other !== undefined)
    steps.push(() => {
      const same = (path: string) => path;
      notes.push(`${other.file}: removed loopguard's hooks (--replace)`);
      return madeByInit(other.settings, other.text)
        ? removeSettingsFile(other.found, same, ownsFolder(other.settings))
        : writeSettingsFile(other.found, other.text, same);
    });
  const change = server?.change;
  if (change !== undefined) {
    const serverStep: InitStep = () => {
      // the file init made for the server alone goes with it, as a settings file init made does (sess68)
      if (change.removesFile) {
        notes.push(`${change.file}: removed (init had made it)`);
        return removeSettingsFile(change.found, (path) => path);
      }
      const written = writeSettingsFile(change.found, change.text, (path) => path, 0o600);
      const backup = written.backup === undefined ? '' : `; backup in ${written.backup}`;
      notes.push(`${change.file}: ${change.what}${backup}`);
      return written;
    };
    // the server goes in after the hooks that refuse the model's call of it, and out before them
    if (change.adds) steps.push(serverStep);
    else steps.unshift(serverStep);
  }
  runSteps(steps);
  updateInstalls(home, { agent, project, ...server?.record }, !options.remove);
  if (other !== undefined) updateInstalls(home, { agent, project: other.project }, false);
  const statusNote = STATUS_LINE_NOTES[statusLine.change];
  if (statusNote !== undefined && statusLine.change !== 'offer' && !fileRemoved)
    notes.push(`${shown(file)}: ${statusNote}`);
  if (!options.remove) notes.push(`${shown(installsFile(home))}: recorded for loopguard uninstall`);
  for (const note of notes) io.stdout(`${note}\n`);
  if (!options.remove) {
    const undo = `loopguard init ${agent}${options.user ? ' --user' : ''} --remove`;
    io.stdout(`To undo: ${undo} (or loopguard uninstall, for every install)\n`);
    // Claude Code and Gemini CLI read a project's settings in the folder they start in, never a
    // parent's: a session started below the project runs unguarded, without a word (qa47)
    if (scope === 'project' && agent !== 'codex')
      io.stdout(
        `${CLI_NAMES[agent]} reads ${shown(file)} only when started in ${io.cwd}: a session started in a subfolder runs unguarded (loopguard init ${agent} --user guards every folder)\n`,
      );
    if (statusLine.change === 'offer') io.stdout(`${STATUS_LINE_NOTES.offer}\n`);
    if (fast && scope === 'project' && gitTracks(file, io.cwd))
      io.stdout(
        `warning: ${shown(file)} is tracked by git, but the MCP server its hooks call is registered in this user's ${claudeConfigFile(io.env)} only: a teammate's Claude Code would run its tool calls unguarded, without a word. Each teammate runs loopguard init claude, or use --command-hooks --command loopguard (a loopguard on the PATH)\n`,
      );
  }
  sayWhatStops();
}

/** A warning line when the hooks just installed answer nothing ({@link switchedOffBy}); whether it said one. */
function saySwitchedOff(
  agent: HookAgent,
  written: { shown: string; text: string },
  projectDir: string | undefined,
  options: InitOptions,
  io: CliIo,
  codexHome: string | undefined,
): boolean {
  if (options.remove || options.dryRun) return false;
  const off = switchedOffBy(agent, written, projectDir, codexHome, io.env);
  const unknown = unknownHookSwitch(io.env);
  if (unknown !== undefined) io.stdout(`warning: ${unknown}\n`);
  if (off !== undefined)
    io.stdout(
      `warning: loopguard is switched off (${off}): its hooks answer nothing until that is taken out\n`,
    );
  return off !== undefined;
}

/**
 * Codex runs a hook only once the user trusts its exact definition (and a project's hooks only
 * in a project it trusts): says whether it does now, and the one step to take when not. loopguard
 * never writes that trust itself. Nothing to say without `codexHome` (another CLI, `--remove`).
 * `switchedOff`: a switch said above keeps trusted hooks from running until it is taken out.
 */
function sayCodexTrust(
  file: string,
  text: string,
  codexHome: string | undefined,
  projectDir: string | undefined,
  io: CliIo,
  switchedOff: boolean,
): void {
  if (codexHome === undefined) return;
  const report = codexTrust(file, text, codexHome, projectDir);
  const waiting = report.hooks.filter((hook) => hook.status !== 'trusted');
  if (report.projectTrusted === false) {
    io.stdout(
      `Codex does not trust this project yet: it loads none of ${projectSettingsPath('codex')} until you do (start codex here and trust the project), or install with --user\n`,
    );
  }
  if (waiting.length === 0) {
    // not "now" under the warning line above: Codex's `hooks = false` runs none of them (qa66)
    const when = switchedOff ? 'once the switch above is taken out' : 'now';
    io.stdout(`Codex trusts loopguard's ${report.hooks.length} hooks: they run ${when}\n`);
    return;
  }
  const modified = waiting.some((hook) => hook.status === 'modified');
  // an earlier init's hooks trusted, a new one added (SessionEnd, polish47): name the one to trust
  const which =
    waiting.length === report.hooks.length
      ? `the ${waiting.length} loopguard hooks`
      : `loopguard's ${waiting.map((hook) => hook.event).join(', ')} hook${waiting.length === 1 ? '' : 's'}`;
  // Codex 0.169.0 asks at its own start, before a slash command can be typed: its words (polish61)
  io.stdout(
    `Codex skips loopguard's hooks until you trust them (${waiting.length} of ${report.hooks.length} ${modified ? 'changed since you trusted them' : 'not trusted yet'}): start codex: it asks about them itself ("Hooks need review"): choose "Trust all and continue", or "Review hooks" to trust ${which} alone (/hooks does the same later); loopguard init codex${projectDir === undefined ? ' --user' : ''} then says whether they run\n`,
  );
}

/** What `init` says of Claude Code's status line, by what it did to it (nothing to say: none). */
const STATUS_LINE_NOTES: Partial<Record<StatusLineChange | 'offer', string>> = {
  added: `status line set: loopguard statusline (what loopguard did to this session, after each reply and every ${STATUS_LINE_REFRESH_SECONDS} s)`,
  replaced: 'status line replaced by loopguard statusline (--replace)',
  'kept-users':
    'keeps your status line; loopguard init claude --replace sets loopguard statusline instead (or call it from yours)',
  removed: "loopguard's status line removed",
  offer:
    "Claude Code's status line can show what loopguard did to each session: loopguard init claude --status-line",
};

/** A bad `hook` section in the project's configuration is reported now, not at every hook call. */
async function checkProjectConfig(cwd: string): Promise<void> {
  try {
    await checkedHookConfig(cwd);
  } catch (error) {
    throw new CliError(`${(error as Error).message}; nothing written`);
  }
}
