import { closeSync, openSync, readSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { shellSegments } from '@loopguard/core/internal';
import { beforeToolCall, type HookEvent } from './hookEvent.js';
import { claudeGuarded, folderHoldsHooks, geminiGuarded } from './hooksRemovedCall.js';
import { HOOKS_OFF_SET } from './ownStateCall.js';
import { shellWords } from './shellWords.js';

/**
 * An agent the model starts with its hooks off (trust64): `codex exec --disable hooks` (Codex
 * 0.169.0: "Equivalent to `-c features.hooks=false`", which `ownStateCall.ts` refuses already),
 * Claude Code's `--bare` ("skip hooks"), `--safe-mode` (hooks disabled), `--restricted` and a
 * `--setting-sources` that leaves a source out (the settings files that hold loopguard's hooks
 * are not read), or `CLAUDE_CODE_SIMPLE` / `CLAUDE_CODE_SAFE_MODE` / `CLAUDE_CODE_RESTRICTED` set
 * (what the three flags set).
 * The nested agent would run its tool calls where loopguard sees none of them: a switch the model
 * flips, as its settings' switches are. Gemini CLI 0.61.0 has no option that skips its hooks.
 * Codex's `--ignore-user-config` skips `$CODEX_HOME/config.toml`, where its hooks' trust and the
 * project's are kept: it runs none of them. So does an agent started with another home
 * (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`, `HOME`; trust65) where the user's home
 * guards it and the other does not: the one rule is that the nested agent loads loopguard's hooks
 * wherever the agent the user would start there does. The nested agent's environment is the
 * user's as the command changes it: a home set, unset (`env -u`, `unset`) or cleared (`env -i`),
 * and Gemini CLI's trust variables (trust66). Claude Code's `--strict-mcp-config` loads no server
 * but those `--mcp-config` names, so the fast path's hooks find none of loopguard's; a server
 * `--mcp-config` names `loopguard` is the one they call; a `--settings` whose text sets
 * `disableAllHooks` runs none (redteam68).
 */

/** What the model is told when such a call is refused: why, and what to do instead. */
export const UNHOOKED_AGENT_REFUSED =
  'loopguard refused this call: it starts an agent with its hooks off (`--disable hooks`, `--bare`, `--safe-mode`, `--restricted`, `--setting-sources`, `--strict-mcp-config`, or an `--mcp-config` server named loopguard), whose tool calls loopguard would not guard; start it without that option, and its hooks guard it too.';

/** What the model is told when it starts an agent with another home that holds none of loopguard's hooks (trust65). */
export const UNHOOKED_HOME_REFUSED =
  "loopguard refused this call: it starts an agent with another home (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`, `HOME`) that holds none of loopguard's hooks, whose tool calls loopguard would not guard; start it with the user's own home, and its hooks guard it too.";

/** What the model is told when it starts Gemini CLI with the project untrusted by its environment, whose hooks are loopguard's (trust66). */
export const UNHOOKED_TRUST_REFUSED =
  "loopguard refused this call: it starts Gemini CLI with the project untrusted (`GEMINI_CLI_TRUST_WORKSPACE=false`, `GEMINI_RESTRICTED_MODE=true`, `GEMINI_CLI_TRUSTED_FOLDERS_PATH`), where it runs none of the project's hooks, loopguard's among them; start it without that variable, and its hooks guard it too.";

/** The agents' programs, by name or by package (`npx @openai/codex`). */
const CODEX = /^(?:codex|@openai\/codex(?:@\S*)?)$/;
const CLAUDE = /^(?:claude|@anthropic-ai\/claude-code(?:@\S*)?)$/;
const GEMINI = /^(?:gemini|@google\/gemini-cli(?:@\S*)?)$/;
type Agent = 'codex' | 'claude' | 'gemini';

/** What may stand before the agent's program: assignments, wrappers, a package runner and their options. */
const LAUNCHER =
  /^(?:\w+=\S*|env|exec|command|nohup|time|sudo|timeout|\d+[smh]?|npx|bunx|pnpm|yarn|dlx|-\S*)$/;

/** Codex's features that run its hooks (`hooks`, and `codex_hooks`, its legacy alias). */
const HOOKS_FEATURE = /^(?:codex_)?hooks$/;

/** Claude Code's options that start it without the hooks of its settings files. */
const CLAUDE_UNHOOKED = /^--(?:bare|safe-mode|restricted)$/;

/** Claude Code's setting sources: a list that leaves one out skips the hooks it holds. */
const SETTING_SOURCES = ['user', 'project', 'local'];

/**
 * The environment that starts Claude Code as `--bare`, `--safe-mode` or `--restricted` do
 * (`CLAUDE_CODE_RESTRICTED`: redteam68, read by 2.1.330 as `1`, `true`, `yes` or `on`), set to
 * anything but off.
 */
const UNHOOKED_ENV = /\bCLAUDE_CODE_(?:SIMPLE|SAFE_MODE|RESTRICTED)=(?!(?:0|false)?(?:\s|$))/;

/** Whether the words after an agent's program start it with its hooks off. */
function unhooked(agent: Agent, args: string[]): boolean {
  return args.some((word, index) => {
    const [flag, inline] = word.split(/=(.*)/s) as [string, string | undefined];
    const value = inline ?? args[index + 1] ?? '';
    if (agent === 'gemini') return false;
    if (agent === 'codex')
      return (flag === '--disable' && HOOKS_FEATURE.test(value)) || word === '--ignore-user-config';
    if (CLAUDE_UNHOOKED.test(word)) return true;
    if (flag !== '--setting-sources') return false;
    const sources = value.split(',').map((source) => source.trim());
    return SETTING_SOURCES.some((source) => !sources.includes(source));
  });
}

/** A server named `loopguard` in an MCP configuration's text. */
const LOOPGUARD_SERVER = /"loopguard"\s*:/;

/** The most of an `--mcp-config` or `--settings` file read: such a file is a few kilobytes. */
const OPTION_FILE_BYTES = 1 << 20;

/**
 * The text of an `--mcp-config` or `--settings` value: its JSON, or the first MiB of the file it
 * names (`''` when it cannot be read).
 */
function optionText(value: string, projectDir: string): string {
  if (value.trimStart().startsWith('{')) return value;
  const path = plainPath(value, '~', projectDir);
  if (path === undefined) return '';
  try {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(OPTION_FILE_BYTES);
      return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** The values of Claude Code's `option` among `args` (`--x=v`, or every word after `--x` up to the next option). */
function optionValues(args: string[], option: string): string[] {
  const values: string[] = [];
  args.forEach((word, index) => {
    if (word.startsWith(`${option}=`)) values.push(word.slice(option.length + 1));
    if (word !== option) return;
    for (const value of args.slice(index + 1)) {
      if (value.startsWith('-')) break;
      values.push(value);
    }
  });
  return values;
}

/**
 * Whether the words after `claude` switch its hooks off through what its options load
 * (redteam68): a `--settings` whose text sets the all-hooks-off switch; an `--mcp-config` that names
 * a server `loopguard` (the one the fast path's hooks then call); `--strict-mcp-config` where those
 * hooks need `.claude.json`'s server (`vars`: the nested agent's environment).
 */
function loadsHooksOff(
  args: string[],
  vars: Record<string, string | undefined>,
  projectDir: string,
): boolean {
  const texts = (option: string) => optionValues(args, option).map((value) => optionText(value, projectDir));
  if (texts('--settings').some((text) => HOOKS_OFF_SET.test(text))) return true;
  if (texts('--mcp-config').some((text) => LOOPGUARD_SERVER.test(text))) return true;
  return (
    args.includes('--strict-mcp-config') &&
    guarded('claude', vars, projectDir) &&
    !guarded('claude', vars, projectDir, false)
  );
}

/** The variables that place an agent's home, and an assignment of one (`export CODEX_HOME=…`). */
const HOME_VARIABLES = new Set(['CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'GEMINI_CLI_HOME', 'HOME']);
/** Gemini CLI's variables that decide its trust in the project (trust66: `geminiEnvTrust`). */
const GEMINI_TRUST_VARIABLES = [
  'GEMINI_RESTRICTED_MODE',
  'GEMINI_CLI_TRUST_WORKSPACE',
  'GEMINI_CLI_TRUSTED_FOLDERS_PATH',
];
const ENV_VARIABLES = new Set([...HOME_VARIABLES, ...GEMINI_TRUST_VARIABLES]);
const ASSIGNMENT = /^(\w+)=(.*)$/s;

/**
 * The folder the agent reads its hooks from (and, for Codex and Gemini CLI, its trust in the
 * project), as it places it from `vars`; `undefined` when a value is not plain (`$(mktemp -d)`).
 */
function agentFolder(
  agent: Agent,
  vars: Record<string, string | undefined>,
  projectDir: string,
): string | undefined {
  const home = vars.HOME ?? '~';
  // an empty `CODEX_HOME` or `GEMINI_CLI_HOME` is unset to the agent (docs/hooks.md)
  const value =
    agent === 'codex'
      ? vars.CODEX_HOME || `${home}/.codex`
      : agent === 'claude'
        ? (vars.CLAUDE_CONFIG_DIR ?? `${home}/.claude`)
        : `${vars.GEMINI_CLI_HOME || home}/.gemini`;
  return plainPath(value, home, projectDir);
}

/** A path a variable holds, as the shell expands `~` and `$HOME` in it; `undefined` when it is not plain. */
function plainPath(value: string, home: string, projectDir: string): string | undefined {
  const path = value.replace(/^~(?=\/|$)/, home).replace(/\$\{HOME\}|\$HOME\b/g, home);
  if (/[$`~*?]/.test(path)) return undefined;
  return isAbsolute(path) ? path : resolve(projectDir, path);
}

/**
 * Whether the agent started with `vars` loads loopguard's hooks: its home's (or the project's, in
 * a project that home trusts: `folderHoldsHooks`, `geminiGuarded` with Gemini CLI's trust in the
 * environment), or, for Claude Code, the project's own settings, which it reads whatever its home
 * (`claudeGuarded`: the fast path's hooks only where its `.claude.json` registers the server, and
 * where `servers` says it loads that file's servers: `--strict-mcp-config` does not).
 */
function guarded(
  agent: Agent,
  vars: Record<string, string | undefined>,
  projectDir: string,
  servers = true,
): boolean {
  const folder = agentFolder(agent, vars, projectDir);
  if (agent === 'gemini') {
    const named = vars.GEMINI_CLI_TRUSTED_FOLDERS_PATH;
    const trustedFolders = named ? (plainPath(named, vars.HOME ?? '~', projectDir) ?? null) : undefined;
    return folder !== undefined && geminiGuarded(folder, projectDir, vars, trustedFolders);
  }
  if (agent === 'codex') return folder !== undefined && folderHoldsHooks(folder, projectDir);
  // Claude Code keeps its `.claude.json` in `CLAUDE_CONFIG_DIR` when set, else in the home
  const state = vars.CLAUDE_CONFIG_DIR
    ? folder && join(folder, '.claude.json')
    : plainPath(`${vars.HOME ?? '~'}/.claude.json`, '~', projectDir);
  const folders = [folder, join(projectDir, '.claude')].filter((path) => path !== undefined);
  return claudeGuarded(folders, projectDir, servers ? state : undefined);
}

/**
 * How a command changes the environment a program starts with: variables set or unset
 * (`undefined`: `env -u`, `unset`), and whether it starts from an empty one (`env -i`).
 */
interface EnvChange {
  cleared: boolean;
  vars: Record<string, string | undefined>;
}

/**
 * The environment the nested agent starts with. Without `HOME` the agents take the passwd entry's
 * home (Codex's `home_dir`, Node's `os.homedir()`), the user's own: read as `env.HOME`.
 */
function nestedEnv(env: Record<string, string | undefined>, change: EnvChange) {
  const vars: Record<string, string | undefined> = change.cleared ? {} : { ...env };
  for (const [name, value] of Object.entries(change.vars)) vars[name] = value;
  return { ...vars, HOME: vars.HOME ?? env.HOME };
}

/**
 * Whether the agent started with the environment `change` makes of the user's (`env`) would run
 * without loopguard's hooks where the agent the user starts there runs with them (trust65: another
 * home; trust66: a home unset, the environment cleared).
 */
function otherHome(
  agent: Agent,
  change: EnvChange,
  env: Record<string, string | undefined>,
  projectDir: string,
): boolean {
  if (!change.cleared && Object.keys(change.vars).length === 0) return false;
  return guarded(agent, env, projectDir) && !guarded(agent, nestedEnv(env, change), projectDir);
}

/** One option of a wrapper: its letters or long name, and the value it takes (`-u NAME`, `-uNAME`, `--unset=NAME`). */
interface WrapperOption {
  flags: string;
  name?: string;
  value?: string;
  /** The index of the option's last word (its value's, when that is the next word). */
  last: number;
}

/**
 * The option `words[at]` of a wrapper whose short options `valued` and long options `long` take
 * a value (a long one's after `=` or as the next word; any other long one's only after `=`); a group of
 * short options (`-vu NAME`) gives its flags before the one that takes the value.
 */
function wrapperOption(
  words: string[],
  at: number,
  valued: string,
  long: readonly string[],
): WrapperOption | undefined {
  const word = words[at] as string;
  const next = (value: string | undefined, name: string): WrapperOption =>
    value === undefined
      ? { flags: '', name, value: words[at + 1] ?? '', last: at + 1 }
      : { flags: '', name, value, last: at };
  const longForm = /^--([\w-]+)(?:=(.*))?$/s.exec(word);
  if (longForm !== null) {
    const name = longForm[1] as string;
    const value = longForm[2];
    if (long.includes(name)) return next(value, name);
    return { flags: '', name, ...(value === undefined ? {} : { value }), last: at };
  }
  const short = /^-(\w+)$/s.exec(word) ?? /^-(\w)(.+)$/s.exec(word);
  if (short === null) return undefined;
  const letters = short[1] as string;
  const index = [...letters].findIndex((letter) => valued.includes(letter));
  if (index === -1) return { flags: letters + (short[2] ?? ''), last: at };
  const rest = letters.slice(index + 1) + (short[2] ?? '');
  const option = next(rest || undefined, letters[index] as string);
  return { ...option, flags: letters.slice(0, index) };
}

/** The short and long options of `env`, `sudo` and `doas` that take a value (GNU coreutils 9, sudo 1.9, OpenDoas 6.8). */
const WRAPPER_OPTIONS = {
  env: ['uCS', ['unset', 'chdir', 'split-string']],
  sudo: [
    'ughpCDrtTUR',
    [
      'user',
      'group',
      'host',
      'prompt',
      'close-from',
      'chdir',
      'role',
      'type',
      'command-timeout',
      'other-user',
      'chroot',
    ],
  ],
  doas: ['uCa', []],
} as const;
type Wrapper = keyof typeof WRAPPER_OPTIONS;

/** `su`'s and `runuser`'s options that take a value (util-linux 2.39). */
const SU_OPTIONS = [
  'ugGcsw',
  ['user', 'group', 'supp-group', 'command', 'session-command', 'shell', 'whitelist-environment'],
] as const;

/**
 * What a change of account keeps of the environment (`all`: `sudo -E`, `su` without `-l`; `names`:
 * `--preserve-env=A,B`, `su -w A,B`), whether it keeps `HOME` (`su -m`), and the target account.
 */
interface AccountSwitch {
  all: boolean;
  names: string[];
  home: boolean;
  user: string;
}

/**
 * Whether `user`, as the command names it, is the user's own account: their name (the agent's
 * `USER` or `LOGNAME`), or `$USER` / `$LOGNAME` where the command names the variable nowhere else
 * (`export USER=ci; sudo -u "$USER"` is another account).
 */
function ownAccount(user: string, command: string, env: Record<string, string | undefined>): boolean {
  const name = /^\$\{?(USER|LOGNAME)\}?$/.exec(user)?.[1];
  if (name !== undefined) return env[name] !== undefined && command.split(name).length === 2;
  return user !== '' && (user === env.USER || user === env.LOGNAME);
}

/**
 * The environment a change of account starts its command with. sudo's (sudoers' `env_reset`) and
 * doas's are cleared but for what `--preserve-env=A,B` names, or kept by `sudo -E`; `su` and
 * `runuser` keep it unless `-l`; all of them set `HOME` to the target account's (`~root`, `~ci`:
 * read as no plain folder) but `su -m`, and `sudo -E` too where sudoers sets `always_set_home`
 * (not readable by the hook). The user's own account's home is the user's (trust68).
 */
function switchedEnv(
  change: EnvChange,
  env: Record<string, string | undefined>,
  keeps: AccountSwitch,
  command: string,
): EnvChange {
  const now = (name: string) =>
    name in change.vars ? change.vars[name] : change.cleared ? undefined : env[name];
  const vars: Record<string, string | undefined> = keeps.all ? { ...change.vars } : {};
  if (!keeps.home) vars.HOME = ownAccount(keeps.user, command, env) ? env.HOME : `~${keeps.user}`;
  for (const name of keeps.names) if (ENV_VARIABLES.has(name)) vars[name] = now(name);
  return { cleared: change.cleared || !keeps.all, vars };
}

/**
 * `su [options] [user] [-c command]` and `runuser` (util-linux): the account switch, and what it
 * runs: the words after `runuser -u user`, or the string of `-c` (run by the target's shell).
 */
function suCall(words: string[], at: number): { keeps: AccountSwitch; command?: string; next?: number } {
  const keeps: AccountSwitch = { all: true, names: [], home: false, user: '' };
  let command: string | undefined;
  for (let index = at + 1; index < words.length; index++) {
    const word = words[index] as string;
    const option = word === '-' ? { flags: 'l', last: index } : wrapperOption(words, index, ...SU_OPTIONS);
    if (option === undefined) {
      if (keeps.user === '') keeps.user = word;
      continue;
    }
    const { flags, name, value = '' } = option;
    index = option.last;
    if (/[lL]/.test(flags) || name === 'login') keeps.all = false;
    if (/[mp]/.test(flags) || name === 'preserve-environment') keeps.home = true;
    if (name === 'w' || name === 'whitelist-environment') keeps.names.push(...value.split(','));
    if (name === 'c' || name === 'command' || name === 'session-command') command = value;
    if (name === 'u' || name === 'user') {
      keeps.user = value;
      const next = words[index + 1] === '--' ? index + 2 : index + 1;
      return { keeps: { ...keeps, user: keeps.user || 'root' }, next };
    }
  }
  // a login (`-l`) keeps nothing of the environment, `HOME` with it
  if (!keeps.all) keeps.home = false;
  return { keeps: { ...keeps, user: keeps.user || 'root' }, ...(command === undefined ? {} : { command }) };
}

/** A shell's `-c` string (`bash -lc 'codex exec …'`), `undefined` when it runs a script or none. */
function shellString(words: string[], at: number): string | undefined {
  let command = false;
  for (let index = at + 1; index < words.length; index++) {
    const word = words[index] as string;
    if (/^[-+]o$|^[-+]O$|^--(?:rcfile|init-file)$/.test(word)) index++;
    else if (/^-[a-zA-Z]+$/.test(word)) command ||= word.includes('c');
    else if (!/^(?:--|\+)/.test(word)) return command ? word : undefined;
  }
  return undefined;
}

/** The shells whose `-c` string is a command of its own. */
const SHELLS = /^(?:sh|bash|zsh|dash|ksh|mksh|ash)$/;

/** How deep commands in strings are read (`su -c "bash -c '…'"`): past it, a string is not read. */
const STRING_DEPTH = 4;

/**
 * Why the call is refused, or `undefined`: one of its shell commands starts Codex, Claude Code or
 * Gemini CLI with its hooks off (see the file's comment).
 * @param env - the agent's environment, where the nested agent's home is placed without an
 *   assignment (default: this process's, a child of the agent).
 * @example unhookedAgentRefusal({ kind: 'before_tool', tool: 'Bash', input: { command: 'codex exec --disable hooks "fix it"' }, ... }); // UNHOOKED_AGENT_REFUSED
 */
export function unhookedAgentRefusal(
  event: HookEvent,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const call = beforeToolCall(event);
  if (call === undefined) return undefined;
  const input = call.input;
  for (const field of ['command', 'cmd']) {
    const value = input[field];
    const command = Array.isArray(value) ? value.join(' ') : value;
    if (typeof command !== 'string' || !/codex|claude|gemini/.test(command)) continue;
    if (UNHOOKED_ENV.test(command)) return UNHOOKED_AGENT_REFUSED;
    const refusal = commandRefusal(command, env, event.projectDir, { cleared: false, vars: {} }, 0);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/**
 * Why `command`, run in `projectDir` with the environment `base` makes of the user's (`env`), is
 * refused: each of its shell commands read for the agent it starts and the environment it gives
 * it; a command in a string (`su -c '…'`, `bash -c '…'`) is read the same way (trust68).
 */
function commandRefusal(
  command: string,
  env: Record<string, string | undefined>,
  projectDir: string,
  base: EnvChange,
  depth: number,
): string | undefined {
  // the homes this command sets or unsets: for the rest of it (`export`, `unset`, a bare assignment) or one program
  const exported: Record<string, string | undefined> = {};
  // `$USER` in a string is the target's shell's (`su ci -c '… "$USER" …'`): the user's only outside one
  const outer = depth === 0 ? command : '';
  for (const segment of shellSegments(command)) {
    // a subshell's or a group's opening (`(unset X; …)`, `{ unset X; …; }`) stands before its first command
    const words = shellWords(segment.replace(/^\s*(?:\(|\{\s)\s*/, ''));
    const change: EnvChange = { cleared: base.cleared, vars: { ...base.vars, ...exported } };
    const set = (name: string | undefined, value: string | undefined) => {
      if (name !== undefined && ENV_VARIABLES.has(name)) change.vars[name] = value;
    };
    let at = 0;
    let wrapper: Wrapper | undefined;
    let account: AccountSwitch | undefined;
    let dir = projectDir;
    for (; at < words.length; at++) {
      const word = words[at] as string;
      const option =
        word === '-' && wrapper === 'env'
          ? { flags: 'i', last: at }
          : wrapper === undefined || !word.startsWith('-')
            ? undefined
            : wrapperOption(words, at, WRAPPER_OPTIONS[wrapper][0], WRAPPER_OPTIONS[wrapper][1]);
      if (option !== undefined) {
        const { flags, name, value = '' } = option;
        at = option.last;
        // `env -C dir`, `sudo -D dir` (`sudo -C` is `--close-from`, `doas -C` a config file)
        const chdir = name === 'chdir' || name === (wrapper === 'env' ? 'C' : wrapper === 'sudo' ? 'D' : '');
        if (chdir) dir = plainPath(value, '~', dir) ?? dir;
        if (wrapper !== 'env' && account !== undefined) {
          if (flags.includes('E') || (name === 'preserve-env' && option.value === undefined))
            account.all = wrapper === 'sudo';
          if (name === 'preserve-env') account.names.push(...value.split(','));
          if (name === 'u' || name === 'user') account.user = value;
          continue;
        }
        if (flags.includes('i') || name === 'ignore-environment')
          Object.assign(change, { cleared: true, vars: {} });
        if (name === 'u' || name === 'unset') set(value, undefined);
        // `env -S 'A=1 codex exec'`: the string's words are the command's next ones
        if (name === 'S' || name === 'split-string') words.splice(at + 1, 0, ...shellWords(value));
        continue;
      }
      if (account !== undefined) Object.assign(change, switchedEnv(change, env, account, outer));
      account = undefined;
      wrapper = undefined;
      if (word === 'env' || word === 'sudo' || word === 'doas') wrapper = word;
      if (word === 'sudo' || word === 'doas') account = { all: false, names: [], home: false, user: 'root' };
      else if (word === 'su' || word === 'runuser') {
        // `runuser -u user cmd` runs the words after it; `su user -c '…'` a string, read below
        const su = suCall(words, at);
        Object.assign(change, switchedEnv(change, env, su.keeps, outer));
        if (su.next === undefined) {
          if (su.command === undefined || depth >= STRING_DEPTH) break;
          const refusal = commandRefusal(su.command, env, dir, change, depth + 1);
          if (refusal !== undefined) return refusal;
          break;
        }
        at = su.next - 1;
      } else if (!LAUNCHER.test(word)) break;
      else {
        const [, name, value] = ASSIGNMENT.exec(word) ?? [];
        set(name, value);
      }
    }
    if (words[at] === 'su' || words[at] === 'runuser') continue;
    if (words[at] === 'export' || words[at] === 'unset' || at === words.length) {
      // `unset NAME`, and `export -n NAME`, which takes it out of what a program is started with
      const unsets = words[at] === 'unset' || words[at + 1] === '-n';
      for (const word of words.slice(at + 1)) {
        const [, name, value] = ASSIGNMENT.exec(word) ?? [undefined, unsets ? word : undefined];
        set(name, unsets ? undefined : value);
      }
      Object.assign(exported, change.vars);
      continue;
    }
    const word = words[at] as string;
    const name = word.split('/').pop() as string;
    const string = SHELLS.test(name) && depth < STRING_DEPTH ? shellString(words, at) : undefined;
    if (string !== undefined) {
      const refusal = commandRefusal(string, env, dir, change, depth + 1);
      if (refusal !== undefined) return refusal;
      continue;
    }
    const agent = [CODEX, CLAUDE, GEMINI].findIndex((pattern) => pattern.test(name) || pattern.test(word));
    if (agent === -1) continue;
    const which = (['codex', 'claude', 'gemini'] as const)[agent] as Agent;
    if (unhooked(which, words.slice(at + 1))) return UNHOOKED_AGENT_REFUSED;
    if (which === 'claude' && loadsHooksOff(words.slice(at + 1), nestedEnv(env, change), dir))
      return UNHOOKED_AGENT_REFUSED;
    if (!otherHome(which, change, env, dir)) continue;
    const untrusts = which === 'gemini' && GEMINI_TRUST_VARIABLES.some((name) => name in change.vars);
    return untrusts ? UNHOOKED_TRUST_REFUSED : UNHOOKED_HOME_REFUSED;
  }
  return undefined;
}
