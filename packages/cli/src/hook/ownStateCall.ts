import { basename, resolve, sep } from 'node:path';
import { beforeToolCall, type HookEvent } from './hookEvent.js';
import { VALUE_FOLLOWS } from './keyValue.js';
import { literalWrites } from './literalWrites.js';
import { type OwnCommandKind, ownCommandKind } from './ownCommandCall.js';
import { commandSetsServerName, MCP_NAME_REFUSED, writesServerName } from './serverNameCall.js';

export { MCP_NAME_REFUSED } from './serverNameCall.js';

/**
 * The model's own tool calls against loopguard (docs/hooks.md, "Why it is safe"): a call that
 * names loopguard's state (`.loopguard`, the project's or the user's), its configuration
 * (`loopguard.config.yaml`, `.yml`, `.json`) or its environment off switch (`LOOPGUARD_HOOK`), or
 * runs its hook, its MCP server, `uninstall`, `init --remove`, `init --command` or `init`'s budget flags
 * (`--max-cost-usd`, `--max-tokens`: they replace the session's cap) itself, is refused before it runs,
 * so that the model cannot clear its own stop, forge an event, spend another session's budget, or
 * switch loopguard off for later sessions. The model runs as the user: a call that hides what it
 * touches (a name built at run time, a script written first) gets through; this refuses the plain
 * ones. Only where a call says what it touches is read: a path argument and a shell command, never
 * the text a call writes (a `.gitignore` or a document may name loopguard's folder), but for the
 * agent's all-hooks-off switch written into its settings file (`writesHooksOff`).
 */

/**
 * What the model is told when its call is refused: that loopguard refused it (Claude Code shows a
 * denial as "hook error", which reads as a hook that failed) and why, in one sentence.
 */
export const OWN_STATE_REFUSED =
  "loopguard refused this call: its own state, configuration and off switch (.loopguard/, loopguard.config.*, LOOPGUARD_HOOK) are the user's to change, not the model's; ask the user (`loopguard status` shows what loopguard did).";

/**
 * What the model is told when it runs loopguard's `status` for another session (or all of them),
 * `recoveries` or `serve` (trust70): loopguard's records of other sessions hold their commands and
 * results, which are not this session's to read.
 */
export const OTHER_SESSIONS_REFUSED =
  "loopguard refused this call: loopguard's records of other sessions (`loopguard status` but for `--session` of this one, `recoveries`, the dashboard of `serve`) are the user's to read, not the model's; ask the user.";

/** The refusal of each kind of loopguard command ({@link ownCommandKind}). */
const COMMAND_REFUSALS: Record<OwnCommandKind, string> = {
  own: OWN_STATE_REFUSED,
  others: OTHER_SESSIONS_REFUSED,
};

/**
 * What the model is told when it hands a hook event to a tool of loopguard's MCP server registered
 * under another name than the hooks call (`mcp__<server>__hook`): the event would be answered as
 * the agent's, for any session.
 */
export const FORGED_EVENT_REFUSED =
  "loopguard refused this call: it hands loopguard's hook a hook event, which only the agent does; the model's calls are guarded, not made by it.";

/**
 * A tool of loopguard's MCP server as an agent names it under any server name: Claude Code's and
 * Codex's `mcp__lg__hook` (a `.mcp.json` registering `loopguard mcp` as `lg`), Gemini CLI's
 * `mcp_lg_hook`. Its calls are refused only with a `hook_event_name` argument, without which the
 * server does nothing: another server's `hook` tool is left alone.
 */
const MCP_HOOK_TOOL = /^mcp__?.+__?hook$/;

/** The arguments that name a file a tool reads or writes (Claude Code, Gemini CLI). */
const PATH_FIELDS = ['file_path', 'notebook_path', 'path', 'absolute_path', 'dir_path'] as const;

/** The arguments that hold a shell command (Claude Code's `Bash`, Gemini CLI's, Codex's). */
const COMMAND_FIELDS = ['command', 'cmd'] as const;

/**
 * The agent's own switch of all its hooks set in its settings, loopguard's with them (trust54):
 * Claude Code's `disableAllHooks`, `allowManagedHooksOnly` (2.1.330 runs no hook for the rest of
 * the running session once written); Gemini CLI's `hooksConfig` (`enabled`, `disabled` by name);
 * as a JSON key or a `jq` path set (a search for them is no harm).
 */
const HOOKS_OFF_KEYS =
  /\b(?:disableAllHooks|allowManagedHooksOnly|allow_managed_hooks_only|hooksConfig)(?:\.\w+)*/.source;
/** One of the agents' switches of all their hooks ({@link HOOKS_OFF_KEYS}) set, in a file's text or a `--settings` value. */
export const HOOKS_OFF_SET = keySet(HOOKS_OFF_KEYS);

/**
 * Codex's switch of all its hooks (trust62; Codex 0.169.0's `codex features list` says which): its
 * `hooks` feature (`codex_hooks`, the legacy alias) set false in a `config.toml` (`[features]` then
 * `hooks = false`, `features.hooks = false`, `features = { hooks = false }`), or by `codex features
 * disable hooks`, which writes it; one hook switched off (`[hooks.state."<key>"]` then
 * `enabled = false`, as its `/hooks` screen writes it) or untrusted (its `trusted_hash` set, or
 * deleted by `sed`: Codex skips a hook it does not trust); `allow_managed_hooks_only` (a
 * `requirements.toml`) is in {@link HOOKS_OFF_SET}.
 */
const CODEX_HOOKS_OFF = new RegExp(
  [
    /\bfeatures\b[\s\S]*?(?:\b|(?<=\\n))(?:codex_)?hooks['"]?\s*=\s*false\b/.source,
    /\bcodex\b[^\n;&|]*\sfeatures\s+disable\s+['"]?(?:codex_)?hooks\b/.source,
    /\bhooks\.state\b[\s\S]*?(?:\b|(?<=\\n))enabled['"]?\s*=\s*false\b/.source,
    /\btrusted_hash['"]?\s*=/.source,
    /\bsed\b[^\n]*\b(?:trusted_hash|hooks\.state)\b[^\n]*\/d\b/.source,
  ].join('|'),
);

/**
 * Codex's `hooks` feature set false, in a command that names a `config.toml` (a `sed` of the line);
 * after a `printf`'s `\n` too.
 */
const CODEX_HOOKS_FALSE = /(?:\b|(?<=\\n))(?:codex_)?hooks['"]?\s*=\s*false\b/;
const CODEX_CONFIG_FILE = /(?:^|[\s'"`/])config\.toml\b/;

/**
 * loopguard's environment switch (`LOOPGUARD_HOOK`), and `SHELLOPTS` (trust70: bash reads it at its
 * start, and `noexec` makes the shell that runs loopguard's hook command run nothing): refused
 * wherever they are set.
 */
const SWITCHES = /\b(?:LOOPGUARD_HOOK|SHELLOPTS)/.source;

/**
 * Variables that run code in, or change, the process that runs loopguard's hook command (trust71):
 * bash's startup file (`BASH_ENV`) and options (`BASHOPTS`), a function it imports
 * (`BASH_FUNC_loopguard%%`, run for the command of that name), the dynamic linker's (`LD_PRELOAD`,
 * `LD_AUDIT`, `LD_LIBRARY_PATH`; macOS's `DYLD_*`: code loaded into the shell and node), node's
 * `NODE_OPTIONS` (`--require`; the commands `init` writes clear it, a `--command` of the user's may
 * not). Refused where an agent hands them to its hooks ({@link SETTINGS_OR_ENV_FILE}); set for one
 * command of the model's own they reach no hook, and are common (`NODE_OPTIONS=--max-old-space-size`).
 * Not `ENV`: a shell reads it only when interactive, and the hook's never is.
 */
const PROCESS_VARIABLES =
  /\b(?:BASH_ENV|BASHOPTS|BASH_FUNC_[^\s'"=:\]]+|LD_[A-Z_]+|DYLD_[A-Z_]+|NODE_OPTIONS)/.source;

/**
 * `name` set: as a JSON, YAML or TOML key, a `jq` path or index (`.env["X"] =`), an assignment
 * (`export X=`); not compared (`env.X === 'off'`).
 */
function keySet(name: string): RegExp {
  return new RegExp(`${name}['"]?\\]?\\s*(?::|=(?!=))`);
}

/**
 * The same in a command, whose `:` key is followed by its value ({@link VALUE_FOLLOWS}: a search
 * for the key is not a set), and not read (`"$LOOPGUARD_HOOK" = off`, `${LOOPGUARD_HOOK:-on}`).
 */
function keySetInCommand(name: string): string {
  return `(?<!\\$\\{?)${name}['"]?\\]?\\s*(?::${VALUE_FOLLOWS}|=(?!=))`;
}

/** Both kinds set in a settings file's `env` (`"LD_PRELOAD": …`) or Codex's `config.toml` (`LD_PRELOAD = …`). */
const VARIABLE_SET = keySet(`(?:${SWITCHES}|${PROCESS_VARIABLES})`);

/**
 * A file whose lines set variables in the agent's environment: a dotenv file (`.env`, `.env.local`,
 * `.envrc`), which tools load, and a shell's startup file (`~/.bashrc`), which every shell the
 * agent is started from runs.
 */
const ENV_LINES_NAME =
  /\.(?:env(?:rc|\.[\w.-]+)?|bashrc|bash_profile|bash_login|profile|zshrc|zshenv|zprofile)/.source;
const ENV_LINES_FILE = new RegExp(`^${ENV_LINES_NAME}$`);

/** Both kinds set in such a file's line (`SHELLOPTS=noexec`, `export BASH_ENV=/tmp/x.sh`). */
const VARIABLE_SET_IN_LINE = new RegExp(
  `(?:^|\\n)[ \\t]*(?:export[ \\t]+)?(?:${SWITCHES}|${PROCESS_VARIABLES})[ \\t]*=`,
);

/** An agent's settings file (Claude Code's, Gemini CLI's), Codex's `config.toml`, or an {@link ENV_LINES_FILE}. */
const SETTINGS_OR_ENV_FILE = new RegExp(
  `(?:^|[\\s'"\`/=<>])(?:settings(?:\\.local)?\\.json|config\\.toml|${ENV_LINES_NAME})(?=$|[\\s'"\`;&|)<>])`,
);

/** In a command: a {@link PROCESS_VARIABLES} set, read only where the command names a {@link SETTINGS_OR_ENV_FILE}. */
const PROCESS_VARIABLE_SET_IN_COMMAND = new RegExp(keySetInCommand(PROCESS_VARIABLES));

/** The texts a file tool writes: a `Write`'s content, an `Edit`'s and each `MultiEdit` edit's new text. */
function writtenTexts(input: Record<string, unknown>): unknown[] {
  const texts = [input.content, input.new_string, input.newString];
  if (Array.isArray(input.edits))
    for (const edit of input.edits) texts.push((edit as Record<string, unknown> | null)?.new_string);
  return texts;
}

/** An agent's settings file: `settings.json` or `settings.local.json` (Claude Code, Gemini CLI). */
const AGENT_SETTINGS_FILE = /^settings(?:\.local)?\.json$/;

/** Codex's configuration file, whose `[shell_environment_policy]` sets the variables its commands get. */
const CODEX_CONFIG_NAME = 'config.toml';

/**
 * Whether a call writes {@link HOOKS_OFF_SET} (or loopguard's own switch in its `env`) into an
 * agent's settings file: the one place where
 * the text a call writes is read (a `Write`'s `content`, an `Edit`'s `new_string`, Gemini CLI's
 * `write_file` and `replace`), since that text is the switch itself.
 */
function writesHooksOff(path: string, input: Record<string, unknown>): boolean {
  const texts = writtenTexts(input).filter((text) => typeof text === 'string');
  const name = basename(path);
  if (ENV_LINES_FILE.test(name)) return texts.some((text) => VARIABLE_SET_IN_LINE.test(text));
  if (name === CODEX_CONFIG_NAME) return texts.some((text) => VARIABLE_SET.test(text));
  if (!AGENT_SETTINGS_FILE.test(name)) return false;
  return texts.some((text) => HOOKS_OFF_SET.test(text) || VARIABLE_SET.test(text));
}

/**
 * In a command: the `.loopguard` folder as a word of a path (`.loopguard`, `.loopguard/state.db`,
 * `~/.loopguard`), the configuration file, the environment switch set (`LOOPGUARD_HOOK=`, or as a JSON
 * or YAML key: a settings file's `env`; a search
 * for the name is no harm), the agent's switch of all its hooks set (`disableAllHooks`,
 * `allowManagedHooksOnly`, Gemini CLI's `hooksConfig`; Codex's: {@link CODEX_HOOKS_OFF}), loopguard's hook or MCP server run by hand (an event the model wrote,
 * answered as the agent's; `loopguard`, or a `bin.js` in a path naming it, not any project's
 * `node dist/bin.js mcp`), or its removal (`loopguard uninstall`, `init --remove`, its hooks pointed
 * at another command by `init --command`; the session's budget replaced by `init --max-cost-usd` or
 * `--max-tokens`; its package
 * removed: {@link REMOVES_OWN_PACKAGE}).
 */
const NAMED_IN_COMMAND = new RegExp(
  [
    /(?:^|[\s'"`/:;&|(<>~=])\.loopguard(?=$|[\s'"`/;&|)<>])/.source,
    /loopguard\.config\.(?:ya?ml|json)\b/.source,
    // set in a shell (`=`) or a settings file's `env` (`"LOOPGUARD_HOOK": "off"`)
    keySetInCommand(SWITCHES),
    keySetInCommand(HOOKS_OFF_KEYS),
    /(?:\bloopguard|bin\.js)['"]?\s+hook\s+['"]?(?:claude|gemini|codex)\b/.source,
    /\bloopguard(?:[^\s'"]*[/\\]bin\.js)?['"]?\s+(?:mcp|uninstall)\b/.source,
    // `init --command true` points the hooks at a command that answers nothing: an off switch too;
    // `init --max-cost-usd` / `--max-tokens` replace the session's cap the configuration sets (redteam68)
    /\bloopguard(?:[^\s'"]*[/\\]bin\.js)?['"]?\s+init\b[^\n;&|]*\s--(?:remove|command|max-cost-usd|max-tokens)(?=[\s='"]|$)/
      .source,
  ].join('|'),
);

/**
 * In a command: loopguard's package removed by a package manager (every hook would fail to start,
 * and fail open). Read once {@link WORKSPACE_SELECTOR} is taken out.
 */
const REMOVES_OWN_PACKAGE =
  /\b(?:npm|pnpm|yarn|bun)\b[^\n;&|]*?\s(?:uninstall|remove|rm|un|r|unlink)(?=\s)[^\n;&|]*?['"\s](?:@loopguard\/cli|loopguard)(?=$|[\s'"@;&|])/;

/**
 * A package manager's workspace argument (`--filter <pkg>`, `-F <pkg>`, `--workspace <pkg>`): it
 * names the package a dependency leaves, not the one removed (`pnpm remove lodash --filter
 * @loopguard/cli` in loopguard's own repository).
 */
const WORKSPACE_SELECTOR = /(?:--filter|--workspace|-F)(?:=|\s+)(?:"[^"]*"|'[^']*'|[^\s;&|]+)/g;

/**
 * An argument that leaves a path out (`--exclude=.loopguard`, `--exclude-dir .loopguard`,
 * `--ignore`, find's `-not -path` and `! -path`, `-path ... -prune -o`): it names loopguard's folder
 * to keep away from it, so it is taken out of the command before {@link NAMED_IN_COMMAND} reads it.
 * A `-prune` not followed by `-o` is kept (its `-exec` would run on the folder).
 */
const EXCLUSION =
  /(?:--exclude(?:-dir)?|--ignore(?:-dir)?)(?:=|\s+)(?:"[^"]*"|'[^']*'|[^\s;&|]+)|(?:-not|!)\s+-i?(?:path|name|wholename)\s+(?:"[^"]*"|'[^']*'|[^\s;&|]+)|-i?path\s+(?:"[^"]*"|'[^']*'|[^\s;&|]+)\s+-prune\s+-o\b/g;

/**
 * Codex's `apply_patch <<'EOF' … EOF`: its file lines (`*** Update File: …`, `Add`, `Delete`,
 * `*** Move to: …`) name what it touches; its other lines are the text it writes (a context line of
 * a `.gitignore` that lists `.loopguard/`), left out as a `Write`'s content is. Another heredoc is
 * kept whole (`bash <<EOF` runs its text).
 */
const APPLY_PATCH = /\bapply_patch\s*<<-?\s*(['"]?)(\w+)\1\n([\s\S]*?)\n\2(?=\n|$)/g;
const PATCH_FILE_LINE = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): /;

/**
 * `command` with its patches' text left out (their file lines kept: {@link APPLY_PATCH}), but for a
 * patch of a `config.toml` (Codex's), whose text may be its hooks-off switch (as `writesHooksOff`).
 */
function withoutPatchText(command: string): string {
  return command.replace(APPLY_PATCH, (patch, _quote, _tag, body: string) => {
    const files = body.split('\n').filter((line) => PATCH_FILE_LINE.test(line));
    return files.some((line) => CODEX_CONFIG_FILE.test(line)) ? patch : ['apply_patch', ...files].join('\n');
  });
}

/** An agent's settings or hooks file in JSON, whose text names loopguard's hook command. */
const HOOKS_JSON_FILE = /^(?:settings(?:\.local)?|hooks)\.json$/;

/**
 * `command` with the text of its literal writes of an agent's settings or hooks file left out (trust68:
 * `cat > .claude/settings.json <<'EOF'`, or to a file then moved onto one: `literalWrites`): that text
 * is the file's, whose hook command is `loopguard hook claude`, read as a `Write`'s content is
 * (`writesHooksOff`: its switches only).
 */
function withoutSettingsText(command: string, dir: string): string {
  let text = command;
  for (const { whole, word, body, then } of literalWrites(command, process.env, dir)) {
    const file = then?.from === word ? then.to : word;
    if (!HOOKS_JSON_FILE.test(basename(file)) || HOOKS_OFF_SET.test(body) || VARIABLE_SET.test(body))
      continue;
    text = text.replace(whole, whole.replace(body, ' '));
  }
  return text;
}

/** Whether `command` names loopguard's own files or switches, its exclusions and patches' text left out. */
function namesOwnState(command: string, dir: string): boolean {
  const text = withoutSettingsText(withoutPatchText(command), dir).replace(EXCLUSION, ' ');
  return (
    NAMED_IN_COMMAND.test(text) ||
    CODEX_HOOKS_OFF.test(text) ||
    (CODEX_CONFIG_FILE.test(text) && CODEX_HOOKS_FALSE.test(text)) ||
    REMOVES_OWN_PACKAGE.test(text.replace(WORKSPACE_SELECTOR, ' ')) ||
    (SETTINGS_OR_ENV_FILE.test(text) && PROCESS_VARIABLE_SET_IN_COMMAND.test(text))
  );
}

/** A file name of loopguard's configuration. */
const CONFIG_FILE = /^loopguard\.config\.(?:ya?ml|json)$/;

/**
 * Why the event's tool call is refused, or `undefined` when it names none of loopguard's own
 * files or switches (only a call not yet run is refused).
 * @example ownStateRefusal({ kind: 'before_tool', tool: 'Bash', input: { command: 'rm -rf .loopguard' }, ... }); // OWN_STATE_REFUSED
 */
export function ownStateRefusal(event: HookEvent): string | undefined {
  const call = beforeToolCall(event);
  if (call === undefined) return undefined;
  const input = call.input;
  if (MCP_HOOK_TOOL.test(call.tool) && typeof input.hook_event_name === 'string') return FORGED_EVENT_REFUSED;
  for (const field of COMMAND_FIELDS) {
    const value = input[field];
    const parts = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    for (const command of parts) {
      if (typeof command !== 'string') continue;
      if (namesOwnState(command, event.projectDir)) return OWN_STATE_REFUSED;
      if (commandSetsServerName(command)) return MCP_NAME_REFUSED;
      const kind = ownCommandKind(command, event.sessionId);
      if (kind !== undefined) return COMMAND_REFUSALS[kind];
    }
  }
  for (const field of PATH_FIELDS) {
    const path = input[field];
    if (typeof path !== 'string') continue;
    if (isOwnFile(resolve(event.projectDir, path)) || writesHooksOff(path, input)) return OWN_STATE_REFUSED;
    if (writesServerName(path, writtenTexts(input))) return MCP_NAME_REFUSED;
  }
  return undefined;
}

/** Longest text of a refused call kept in its `call_refused` entry (a longer one is cut). */
export const MAX_REFUSED_CALL_TEXT = 2_000;

/**
 * What a refused call would have done, as the user reads it in its `call_refused` entry: its shell
 * command, else the path it names, else its input as JSON; cut at {@link MAX_REFUSED_CALL_TEXT}.
 * @example refusedCallText({ kind: 'before_tool', tool: 'Bash', input: { command: 'rm -rf .loopguard' }, ... }); // 'rm -rf .loopguard'
 */
export function refusedCallText(event: HookEvent): string {
  const input = (event.kind === 'before_tool' ? event.input : undefined) as
    | Record<string, unknown>
    | undefined;
  const field = [...COMMAND_FIELDS, ...PATH_FIELDS].find((name) => input?.[name] !== undefined);
  const value = field === undefined ? input : input?.[field];
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value) && value.every((part) => typeof part === 'string')
        ? value.join(' ')
        : (JSON.stringify(value) ?? '');
  return text.length > MAX_REFUSED_CALL_TEXT ? `${text.slice(0, MAX_REFUSED_CALL_TEXT)}…` : text;
}

/** Whether `path` (absolute) is in a `.loopguard` folder or is loopguard's configuration. */
function isOwnFile(path: string): boolean {
  return path.split(sep).includes('.loopguard') || CONFIG_FILE.test(basename(path));
}
