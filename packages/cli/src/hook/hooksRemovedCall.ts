import { lstatSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { shellSegments } from '@loopguard/core/internal';
import { beforeToolCall, type HookEvent } from './hookEvent.js';
import { literalWrites } from './literalWrites.js';
import {
  codexTrusts,
  GEMINI_TRUST_NAME,
  geminiEnvTrust,
  geminiTrustOff,
  geminiTrusts,
  tomlCode,
} from './projectTrust.js';
import { shellWords } from './shellWords.js';
import { weakensHooks } from './weakenedHooks.js';

/**
 * The model's calls that take loopguard's hooks out of an agent's hooks file (trust64): Claude
 * Code's `.claude/settings.json` and `settings.local.json` (the project's, the user's), Gemini
 * CLI's `.gemini/settings.json`, Codex's `hooks.json` and the hooks tables of its `config.toml`,
 * and Claude Code's `.claude.json`, which registers the MCP server the fast path's hooks call
 * (also unregistered by `claude mcp remove loopguard`). The session goes on guarded, but the next one would run unguarded; `init` is the user's way in
 * and `init --remove` the user's way out. An edit by a file tool (`Edit`, `Write`, Gemini CLI's
 * `replace` and `write_file`, Codex's `apply_patch`) is judged by the file it leaves: refused when
 * one of loopguard's hook events is gone from it. A shell command cannot be read that way, so a
 * shell command that writes an agent's hooks file holding loopguard's hooks (its own switches:
 * `ownStateCall.ts`) is refused, and the refusal says to use the edit tool. Untrusting a project
 * whose hooks are loopguard's takes them out the same way (trust65: Gemini CLI's
 * `trustedFolders.json`, Codex's `trust_level` in `config.toml`; `projectTrust.ts`).
 */

/** What the model is told when such a call is refused: why, and what to do instead. */
export const HOOKS_REMOVED_REFUSED =
  "loopguard refused this call: it would take loopguard's hooks out of the agent's settings or hooks file, and the sessions after it would run unguarded; that is the user's to do (`loopguard init <agent> --remove`). To change another setting in that file, edit it with your file edit tool (Edit, replace, apply_patch) and leave loopguard's hook entries as they are.";

/** Longest hooks file read to compare (Claude Code's `.claude.json` grows with its history). */
const MAX_HOOKS_FILE = 16 << 20;

/**
 * File names that hold an agent's hooks: the JSON ones, Codex's `config.toml`, and Claude Code's
 * `.claude.json` (the MCP server its fast path's hooks call).
 */
const HOOKS_JSON_NAME = /^(?:settings(?:\.local)?|hooks)\.json$/;
const CODEX_CONFIG_NAME = 'config.toml';
const CLAUDE_STATE_NAME = '.claude.json';

/**
 * A hook entry of loopguard's in a JSON hooks file, by what it runs: loopguard's hook (`loopguard
 * hook claude`, a clone's `bin.js`, or any command `init --command` wrote under loopguard's marker,
 * the key `init` writes), the `loopguard` MCP server's `mcp_tool`, the old resident process's URL.
 * An entry that keeps the marker but runs another command is no longer loopguard's.
 */
function isLoopguardEntry(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null) return false;
  const fields = entry as Record<string, unknown>;
  const marked = typeof fields.loopguard === 'object' && fields.loopguard !== null;
  const command = typeof fields.command === 'string' ? fields.command : '';
  return (
    (RUNS_HOOK.test(command) && (marked || LOOPGUARD_COMMAND.test(command))) ||
    (fields.type === 'mcp_tool' && fields.server === 'loopguard') ||
    (typeof fields.url === 'string' && /^http:\/\/127\.0\.0\.1:\d+\/hook\//.test(fields.url))
  );
}

/** A command that runs an agent's hook (`… hook claude`), and one that runs loopguard's. */
const RUNS_HOOK = /\bhook\s+['"]?(?:claude|gemini|codex)\b/;
const LOOPGUARD_COMMAND = /(?:loopguard|bin\.js)[^\n]*\bhook\s+['"]?(?:claude|gemini|codex)\b/;

/** A line of loopguard's hook entry: its command, its marker, its MCP server. */
const LOOPGUARD_LINE = new RegExp(
  `${LOOPGUARD_COMMAND.source}|"loopguard"\\s*:\\s*\\{|"server"\\s*:\\s*"loopguard"`,
);

/** How many lines of `text` are loopguard's hook entries' ({@link LOOPGUARD_LINE}). */
function loopguardLines(text: string): number {
  // a hook inside a multi-line string or a comment is no hook to Codex (trust67)
  return tomlCode(text, false)
    .split('\n')
    .filter((line) => LOOPGUARD_LINE.test(line)).length;
}

/** JSONC's comments and trailing commas (Gemini CLI's settings take them), strings kept. */
const JSONC_EXTRA = /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\/|,(?=\s*[}\]])/g;

/** A JSON hooks file's content (JSONC's extras taken out), `undefined` when it is not JSON. */
function parsedHooksFile(text: string): unknown {
  try {
    return JSON.parse(text.replace(JSONC_EXTRA, (_match, string?: string) => string ?? '')) ?? null;
  } catch {
    return undefined;
  }
}

/**
 * The hook events of `text` (a JSON hooks file) that run loopguard, each with its group's matcher
 * (`PreToolUse\0*`: a matcher changed to match nothing takes the hook out too); in Claude Code's
 * `.claude.json`, the places that register loopguard's MCP server, which its fast path's hooks call
 * (`mcpServers\0<project>`: a hook whose server is gone runs nothing). `undefined` when it is not
 * JSON (an unreadable settings file runs no hook).
 */
function loopguardEvents(
  text: string,
  name: string,
  entryTest: (entry: unknown) => boolean = isLoopguardEntry,
): Set<string> | undefined {
  const settings = parsedHooksFile(text);
  if (settings === undefined) return undefined;
  const events = new Set<string>();
  const root = (settings ?? {}) as { hooks?: unknown; mcpServers?: unknown; projects?: unknown };
  if (name === CLAUDE_STATE_NAME) {
    const projects = typeof root.projects === 'object' && root.projects !== null ? root.projects : {};
    for (const [project, fields] of [['', root], ...Object.entries(projects)] as Array<[string, unknown]>) {
      const server = (fields as { mcpServers?: { loopguard?: unknown } } | null)?.mcpServers?.loopguard;
      if (/loopguard|bin\.js/.test(JSON.stringify(server ?? '')) && /\bmcp\b/.test(JSON.stringify(server)))
        events.add(`mcpServers\0${project}`);
    }
    return events;
  }
  const hooks = root.hooks;
  if (typeof hooks !== 'object' || hooks === null) return events;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const { hooks: entries, matcher } = (group ?? {}) as { hooks?: unknown; matcher?: unknown };
      if (Array.isArray(entries) && entries.some(entryTest)) events.add(`${event}\0${String(matcher ?? '')}`);
    }
  }
  return events;
}

/**
 * The trusted folders file Gemini CLI reads in place of `~/.gemini/trustedFolders.json`
 * (`GEMINI_CLI_TRUSTED_FOLDERS_PATH`, 0.61.0's `Storage.getTrustedFoldersPath`; trust67), when the
 * environment names one plainly; relative to the project, the folder the agent runs in.
 */
function namedTrustFile(env: Record<string, string | undefined>, projectDir: string): string | undefined {
  const path = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH;
  return path && !/[$`~*?]/.test(path) ? resolve(projectDir, path) : undefined;
}

/** Whether `file` is a Gemini CLI trusted folders file: its own name, or the one the environment names. */
function isTrustFile(file: string, trustFile: string | undefined): boolean {
  return basename(file) === GEMINI_TRUST_NAME || (trustFile !== undefined && resolve(file) === trustFile);
}

/**
 * Whether `after` (`undefined`: the file is gone) keeps every hook of loopguard's that `before`
 * holds, and the agent's trust in `projectDir` where the project's hooks are loopguard's (trust65:
 * Gemini CLI's trusted folders, Codex's `trust_level`; an untrusted project's hooks do not run).
 */
function keepsHooks(
  file: string,
  before: string,
  after: string | undefined,
  projectDir: string,
  trustFile?: string,
): boolean {
  const name = basename(file);
  if (userGeminiSettings(file, projectDir)) {
    const folders = hooksFileText(join(dirname(file), GEMINI_TRUST_NAME));
    const trusts = (settings: string | undefined) =>
      geminiTrustOff(settings) || geminiTrusts(folders, projectDir);
    if (projectHolds(projectDir, 'gemini') && trusts(before) && !trusts(after)) return false;
  }
  if (isTrustFile(file, trustFile))
    return (
      !projectHolds(projectDir, 'gemini') ||
      !geminiTrusts(before, projectDir) ||
      geminiTrusts(after, projectDir)
    );
  // Codex's hooks tables in TOML: loopguard's hook commands, line by line
  if (name === CODEX_CONFIG_NAME)
    return (
      loopguardLines(after ?? '') >= loopguardLines(before) &&
      (!projectHolds(projectDir, 'codex') ||
        !codexTrusts(before, projectDir) ||
        codexTrusts(after, projectDir))
    );
  const had = loopguardEvents(before, name);
  if (had === undefined || had.size === 0) return true;
  const has = after === undefined ? new Set<string>() : (loopguardEvents(after, name) ?? new Set<string>());
  if (![...had].every((event) => has.has(event))) return false;
  // kept, but not weakened: its timeout lowered or made async (trust70)
  return (
    name === CLAUDE_STATE_NAME ||
    !weakensHooks(parsedHooksFile(before), parsedHooksFile(after ?? ''), isLoopguardEntry)
  );
}

/** The text of the hooks file at `path` now, `undefined` when it is not one (nor `trustFile`) or cannot be read. */
function hooksFileText(path: string, trustFile?: string): string | undefined {
  const name = basename(path);
  if (
    !isTrustFile(path, trustFile) &&
    !HOOKS_JSON_NAME.test(name) &&
    name !== CODEX_CONFIG_NAME &&
    name !== CLAUDE_STATE_NAME &&
    name !== GEMINI_TRUST_NAME
  )
    return undefined;
  return boundedText(path);
}

/** A file's text, `undefined` when it is larger than a hooks file may be or cannot be read. */
function boundedText(path: string): string | undefined {
  try {
    if (statSync(path).size > MAX_HOOKS_FILE) return undefined;
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** One string replacement of a file edit tool (Claude Code's `Edit`, Gemini CLI's `replace`). */
interface Replacement {
  old_string?: unknown;
  new_string?: unknown;
  replace_all?: unknown;
  allow_multiple?: unknown;
  expected_replacements?: unknown;
}

/** `text` after the file tool's input, `undefined` when it cannot apply (the tool fails too). */
function editedText(text: string, input: Record<string, unknown>): string | undefined {
  if (typeof input.content === 'string') return input.content;
  const edits = (Array.isArray(input.edits) ? input.edits : [input]) as Replacement[];
  let after = text;
  for (const edit of edits) {
    const { old_string: from, new_string: to } = edit ?? {};
    if (typeof from !== 'string' || typeof to !== 'string' || from === '' || !after.includes(from))
      return undefined;
    const all =
      edit.replace_all === true ||
      edit.allow_multiple === true ||
      (typeof edit.expected_replacements === 'number' && edit.expected_replacements > 1);
    after = all ? after.split(from).join(to) : after.replace(from, () => to);
  }
  return after;
}

/** A Codex patch (`*** Begin Patch … *** End Patch`), alone or in an `apply_patch` heredoc. */
const PATCH = /\*\*\* Begin Patch\n([\s\S]*?)(?:\n\*\*\* End Patch|$)/g;
const PATCH_FILE = /^\*\*\* (Add|Update|Delete) File: (.+)$/;

/**
 * Whether the patch's changes keep loopguard's hooks in every hooks file it touches, and the trust
 * in the trusted folders file the environment names (`trustFile`, trust68).
 */
function patchKeepsHooks(body: string, projectDir: string, trustFile?: string): boolean {
  const files = body.split(/\n(?=\*\*\* (?:Add|Update|Delete) File: )/);
  for (const file of files) {
    const [header = '', ...lines] = file.split('\n');
    const match = PATCH_FILE.exec(header);
    if (match === null) continue;
    const path = resolve(projectDir, (match[2] as string).trim());
    const moved = lines[0]?.startsWith('*** Move to: ') === true;
    // moved onto a hooks file: what the file moved holds, patched, takes its place
    const to = moved ? (lines[0] as string).slice(13).trim() : '';
    if (moved && !moveKeepsHooks(path, to, lines.slice(1), projectDir, trustFile)) return false;
    const before = hooksFileText(path, trustFile);
    if (before === undefined) continue;
    if (match[1] === 'Delete' || moved) {
      if (!keepsHooks(path, before, undefined, projectDir, trustFile)) return false;
      continue;
    }
    const after =
      match[1] === 'Add'
        ? lines.map((line) => line.replace(/^\+/, '')).join('\n')
        : patchedText(before, lines);
    // a hunk that does not apply as written: what it takes out is read line by line
    const removed = lines.filter((line) => line.startsWith('-')).join('\n');
    const added = lines.filter((line) => line.startsWith('+')).join('\n');
    const kept =
      after === undefined
        ? loopguardLines(added) >= loopguardLines(removed)
        : keepsHooks(path, before, after, projectDir, trustFile);
    if (!kept) return false;
  }
  return true;
}

/**
 * Whether a patch's `*** Move to:` keeps loopguard's hooks in the file it lands on: the file moved
 * (`from`), with the section's hunks applied, is what that file then holds; one that cannot be read
 * or patched is not known to keep them.
 */
function moveKeepsHooks(
  from: string,
  to: string,
  lines: string[],
  projectDir: string,
  trustFile?: string,
): boolean {
  const target = resolve(projectDir, to);
  const before = hooksFileText(target, trustFile);
  if (before === undefined || target === from) return true;
  let moved: string | undefined;
  try {
    if (statSync(from).size <= MAX_HOOKS_FILE) moved = readFileSync(from, 'utf8');
  } catch {
    moved = undefined;
  }
  const after = moved === undefined ? undefined : patchedText(moved, lines);
  return after !== undefined && keepsHooks(target, before, after, projectDir, trustFile);
}

/** `before` with an `*** Update File` section's hunks applied, `undefined` when one does not apply. */
function patchedText(before: string, lines: string[]): string | undefined {
  let after = before;
  const hunks: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('@@') || hunks.length === 0) hunks.push([]);
    if (!line.startsWith('@@')) hunks.at(-1)?.push(line);
  }
  for (const hunk of hunks) {
    const body = hunk.filter((line) => line !== '*** End of File');
    const from = body.filter((line) => !line.startsWith('+')).map((line) => line.slice(1));
    const to = body.filter((line) => !line.startsWith('-')).map((line) => line.slice(1));
    if (from.length === 0) {
      after = `${after}${to.join('\n')}\n`;
      continue;
    }
    const old = from.join('\n');
    if (!after.includes(old)) return undefined;
    after = after.replace(old, () => to.join('\n'));
  }
  return after;
}

/**
 * In a shell command's word: an agent's JSON hooks file (the project's or the user's, by `~`,
 * `$HOME`, `$CODEX_HOME`, `$CLAUDE_CONFIG_DIR`), Codex's `config.toml`, and the agents' folders.
 */
const HOOKS_FILE_PATH =
  /(?:\.(?:claude|gemini)\}?|CLAUDE_CONFIG_DIR[^/\s'"]*)\/settings(?:\.local)?\.json|\.gemini\}?\/trustedFolders\.json|(?:\.codex\}?|CODEX_HOME[^/\s'"]*)\/hooks\.json|(?<=^|\/)\.claude\.json|GEMINI_CLI_TRUSTED_FOLDERS_PATH\}?/
    .source;
const CODEX_CONFIG_PATH = /(?:\.codex\}?|CODEX_HOME[^/\s'"]*)\/config\.toml/.source;
/** The file as a whole word (a redirection's target, an argument), and anywhere in a script's text. */
const HOOKS_FILE_WORD = new RegExp(`(?:^|/|\\$\\{?)(?:${HOOKS_FILE_PATH})$`);
const CODEX_CONFIG_WORD = new RegExp(`(?:^|/|\\$\\{?)(?:${CODEX_CONFIG_PATH})$`);
const HOOKS_FILE_TEXT = new RegExp(
  `(?:^|[\\s'"\`(=])([^\\s'"\`()=,;]*(?:${HOOKS_FILE_PATH}))(?=$|[\\s'"\`),;])`,
  'g',
);
const CODEX_CONFIG_TEXT = new RegExp(
  `(?:^|[\\s'"\`(=])([^\\s'"\`()=,;]*(?:${CODEX_CONFIG_PATH}))(?=$|[\\s'"\`),;])`,
  'g',
);
const AGENT_FOLDER_WORD =
  /(?:(?:^|\/)\.(?:claude|gemini|codex)|^\$\{?(?:CODEX_HOME|CLAUDE_CONFIG_DIR)\}?)\/?$/;

/**
 * loopguard's MCP server unregistered by Claude Code's own command (its fast path's hooks then run
 * nothing), or another server registered under its name (`claude mcp add loopguard -- …`,
 * `add-json`: a local scope's entry shadows the user's, and its answers are the hooks', redteam68).
 * The name before `--` only: a server's own arguments after it are its command's.
 */
const MCP_REMOVED =
  /\bclaude\b[^\n;&|]*\smcp\s+(?:remove|rm|add|add-json)\b(?:(?!\s--(?:\s|$))[^\n;&|])*?\s['"]?loopguard['"]?(?=\s|$|[;&|])/;

/** What every command this file refuses names: a patch, an agent's folder or its home. */
const AGENT_NAMED =
  /\*\*\* Begin Patch|\.(?:claude|gemini|codex)\b|CODEX_HOME|CLAUDE_CONFIG_DIR|GEMINI_CLI_TRUSTED_FOLDERS_PATH|\bmcp\b/;

/** Programs that only read the files they name (unless a redirection writes one; `loopguard`: {@link loopguardWrites}). */
const READERS =
  /^(?:cat|less|more|head|tail|grep|egrep|fgrep|rg|ag|jq|diff|cmp|wc|ls|stat|file|test|\[|echo|printf|bat|md5sum|sha\d*sum|realpath|readlink|dirname|basename|tree|code|du|touch|loopguard|codex|claude|gemini)$/;

/**
 * The file `loopguard` writes among its arguments: `scan --html <file>` replaces it with the report
 * (HTML where the agent reads JSON: its hooks gone, redteam68); its other arguments it only reads.
 */
function loopguardWrites(args: string[]): string[] {
  return args.flatMap((word, index) =>
    word === '--html' ? (args[index + 1] ?? []) : word.startsWith('--html=') ? word.slice(7) : [],
  );
}

/** Programs that edit a file in place with a short option holding `i` (`sed -i`, `perl -pi`, `yq -i`, `gawk -i inplace`). */
const IN_PLACE = /^(?:sed|gsed|perl|ruby|yq|awk|gawk)$/;

/** Programs that replace or remove what they name (their last word: `cp`, `install`, `ln`, `rsync`). */
const REMOVERS = /^(?:rm|unlink|truncate|shred|rmdir)$/;
const COPIERS = /^(?:cp|install|ln|rsync)$/;

/** What may stand before the program: assignments and the wrappers that run it. */
const PREFIX = /^(?:\w+=\S*|sudo|exec|command|nohup|time|env|builtin|-\S*)$/;

/** The files of an agent's folder that may hold its hooks, or its trust in a project that holds them. */
const FOLDER_FILES = [
  'settings.json',
  'settings.local.json',
  'hooks.json',
  CODEX_CONFIG_NAME,
  GEMINI_TRUST_NAME,
];

/** Where a shell command's paths are read from: the project, the agent's environment, whether a `cd` moved it. */
interface PathContext {
  projectDir: string;
  env: Record<string, string | undefined>;
  /** The command changes its folder (`cd`, `pushd`): a relative path's folder is not known. */
  moved: boolean;
  /** The trusted folders file the environment names (`namedTrustFile`). */
  trustFile?: string;
}

/** An agent's home named by its variable (`$CODEX_HOME`, `${CLAUDE_CONFIG_DIR:-~/.claude}`). */
const AGENT_HOME =
  /\$\{(CODEX_HOME|CLAUDE_CONFIG_DIR|GEMINI_CLI_TRUSTED_FOLDERS_PATH)(?::?-([^}]*))?\}|\$(CODEX_HOME|CLAUDE_CONFIG_DIR|GEMINI_CLI_TRUSTED_FOLDERS_PATH)\b/g;
const HOME_DEFAULT: Record<string, string> = {
  CODEX_HOME: '~/.codex',
  CLAUDE_CONFIG_DIR: '~/.claude',
  GEMINI_CLI_TRUSTED_FOLDERS_PATH: `~/.gemini/${GEMINI_TRUST_NAME}`,
};

/** The file a shell word names, `undefined` when the command does not say it plainly (another variable, a glob, after a `cd`). */
function pathOf(word: string, { projectDir, env, moved }: PathContext): string | undefined {
  const home = env.HOME ?? '~';
  const path = word
    .replace(AGENT_HOME, (_match, braced?: string, fallback?: string, bare?: string) => {
      const name = (braced ?? bare) as string;
      return env[name] ?? fallback ?? (HOME_DEFAULT[name] as string);
    })
    .replace(/^~(?=\/|$)/, home)
    .replace(/\$\{HOME\}|\$HOME\b/g, home);
  if (/[$`~*?[]/.test(path) || (moved && !isAbsolute(path))) return undefined;
  return resolve(projectDir, path);
}

/**
 * Whether the hooks file (or agent's folder) a shell word names holds a hook of loopguard's now;
 * also when that cannot be told. A file that does not exist, or holds none, is not loopguard's to
 * keep: writing it is left alone (a permission added to a `settings.local.json` without hooks).
 */
function holdsHooks(word: string, context: PathContext): boolean {
  const path = pathOf(word, context);
  if (path === undefined) return true;
  const files = AGENT_FOLDER_WORD.test(word) ? FOLDER_FILES.map((name) => join(path, name)) : [path];
  return files.some((file) => fileHolds(file, context.projectDir, context.trustFile));
}

/**
 * Whether the hooks file holds one of loopguard's hooks; a trust file (Gemini CLI's trusted
 * folders, Codex's `config.toml`), whether it trusts `projectDir` where the project's hooks are
 * loopguard's.
 */
function fileHolds(file: string, projectDir: string, trustFile?: string): boolean {
  const text = hooksFileText(file, trustFile);
  if (text === undefined) return false;
  const name = basename(file);
  if (isTrustFile(file, trustFile))
    return projectHolds(projectDir, 'gemini') && geminiTrusts(text, projectDir);
  if (userGeminiSettings(file, projectDir) && geminiTrustOff(text) && projectHolds(projectDir, 'gemini'))
    return true;
  return (
    hooksIn(text, name) ||
    (name === CODEX_CONFIG_NAME && projectHolds(projectDir, 'codex') && codexTrusts(text, projectDir))
  );
}

/** Whether a hooks file's text holds one of loopguard's hooks. */
function hooksIn(text: string, name: string): boolean {
  return name === CODEX_CONFIG_NAME ? loopguardLines(text) > 0 : (loopguardEvents(text, name)?.size ?? 0) > 0;
}

/**
 * Whether `file` is a Gemini CLI `settings.json` of a home (not the project's own, whose folder
 * trust Gemini CLI ignores): its `security.folderTrust` decides whether the project is trusted.
 */
function userGeminiSettings(file: string, projectDir: string): boolean {
  const folder = dirname(file);
  return (
    basename(file) === 'settings.json' &&
    basename(folder) === '.gemini' &&
    folder !== join(projectDir, '.gemini')
  );
}

/** Whether the project's own hooks files of Gemini CLI or Codex hold one of loopguard's hooks. */
function projectHolds(projectDir: string, agent: 'gemini' | 'codex'): boolean {
  const files = agent === 'gemini' ? ['settings.json'] : ['hooks.json', CODEX_CONFIG_NAME];
  return files.some((name) => {
    const text = hooksFileText(join(projectDir, `.${agent}`, name));
    return text !== undefined && hooksIn(text, name);
  });
}

/** Whether an agent's folder (a nested agent's home) holds one of loopguard's hooks. */
export function folderHoldsHooks(folder: string, projectDir: string): boolean {
  return FOLDER_FILES.some((name) => fileHolds(join(folder, name), projectDir));
}

/** A hook entry of loopguard's that runs without its MCP server: any but the fast path's `mcp_tool`. */
function runsAlone(entry: unknown): boolean {
  return isLoopguardEntry(entry) && (entry as { type?: unknown }).type !== 'mcp_tool';
}

/**
 * Whether Claude Code started with the settings folders `folders` (its home's, the project's
 * `.claude`) loads a hook of loopguard's that runs (trust66): a command hook runs on its own (one
 * of `SessionEnd`, which the fast path writes as a command, sees no call); the fast path's
 * `mcp_tool` hooks call loopguard's MCP server, so they run only where `stateFile`
 * (the `.claude.json` that Claude Code reads; `undefined`: not known) registers it for the user
 * or for `projectDir`.
 */
export function claudeGuarded(folders: string[], projectDir: string, stateFile: string | undefined): boolean {
  let fastPath = false;
  for (const folder of folders)
    for (const name of ['settings.json', 'settings.local.json']) {
      const text = hooksFileText(join(folder, name));
      if (text === undefined) continue;
      const alone = loopguardEvents(text, name, runsAlone) ?? new Set<string>();
      if ([...alone].some((event) => !event.startsWith('SessionEnd\0'))) return true;
      fastPath ||= (loopguardEvents(text, name)?.size ?? 0) > 0;
    }
  const state = fastPath && stateFile !== undefined ? hooksFileText(stateFile) : undefined;
  const servers = state === undefined ? undefined : loopguardEvents(state, CLAUDE_STATE_NAME);
  return servers?.has('mcpServers\0') === true || servers?.has(`mcpServers\0${resolve(projectDir)}`) === true;
}

/**
 * Whether Gemini CLI started with `env` in `projectDir` loads loopguard's hooks: from its home's
 * `folder` (`.gemini`), whose hooks need no trust, or from the project's own settings where it
 * trusts the project: by its environment first (`geminiEnvTrust`), then folder trust switched off,
 * then its trusted folders file (`GEMINI_CLI_TRUSTED_FOLDERS_PATH`, plain and absolute, when set).
 * @param trustedFolders - the file the environment names, `null` when it names one not plainly
 *   (default: `folder`'s `trustedFolders.json`).
 */
export function geminiGuarded(
  folder: string,
  projectDir: string,
  env: Record<string, string | undefined>,
  trustedFolders: string | null = join(folder, GEMINI_TRUST_NAME),
): boolean {
  const settings = hooksFileText(join(folder, 'settings.json'));
  if (settings !== undefined && hooksIn(settings, 'settings.json')) return true;
  if (!projectHolds(projectDir, 'gemini')) return false;
  const trust = geminiEnvTrust(env);
  if (trust !== undefined) return trust;
  if (geminiTrustOff(settings)) return true;
  return trustedFolders !== null && geminiTrusts(boundedText(trustedFolders), projectDir);
}

/**
 * Whether one command of a shell command line writes an agent's hooks file that holds loopguard's
 * hooks: a redirection to it,
 * `tee`/`sponge`/`dd of=` into it, an in-place edit, `rm`/`mv` of it or of the agent's folder,
 * `cp` over it, `loopguard scan --html` into it, or any other program than a reader given it (an interpreter's script). Codex's
 * `config.toml` also holds its other settings: only its removal, its replacement, and an edit
 * that names hooks or loopguard are refused there (an MCP server appended stays the user's ask).
 */
function writesHooksFile(segment: string, context: PathContext): boolean {
  const words = shellWords(segment);
  let at = 0;
  while (at < words.length && PREFIX.test(words[at] as string)) at++;
  const program = (words[at] ?? '').split('/').pop() as string;
  const args = words.slice(at + 1).filter((word) => !/^\d*[<>]/.test(word));
  const targets: Array<{ word: string; replaced: boolean }> = [];
  words.forEach((word, index) => {
    const redirect = /^(?:\d*|&)(>>?\|?)(.*)$/.exec(word);
    if (redirect === null) return;
    const target = redirect[2] === '' ? words[index + 1] : redirect[2];
    if (target !== undefined) targets.push({ word: target, replaced: redirect[1] !== '>>' });
  });
  // the trusted folders file the environment names, by its path (trust67)
  const trustFile = (pattern: RegExp, word: string) =>
    pattern === HOOKS_FILE_WORD &&
    context.trustFile !== undefined &&
    pathOf(word, context) === context.trustFile;
  const is = (pattern: RegExp, word: string | undefined) =>
    word !== undefined && (pattern.test(word) || trustFile(pattern, word)) && holdsHooks(word, context);
  const last = args.at(-1);
  const sources = args.slice(0, -1).filter((word) => !word.startsWith('-'));
  const named = (pattern: RegExp) => args.some((word) => is(pattern, word));
  const inPlace = IN_PLACE.test(program) && args.some((word) => /^-[a-zA-Z]*i|^--in-place/.test(word));
  const gitWrite = program === 'git' && /^(?:checkout|restore|rm|mv|reset)$/.test(args[0] ?? '');
  const folderGone =
    (REMOVERS.test(program) && named(AGENT_FOLDER_WORD)) ||
    (program === 'mv' && sources.some((word) => is(AGENT_FOLDER_WORD, word)));
  const intoFolder =
    (program === 'mv' || COPIERS.test(program)) &&
    is(AGENT_FOLDER_WORD, last) &&
    sources.some((word) => HOOKS_JSON_NAME.test(basename(word)));
  if (folderGone || intoFolder) return true;
  for (const [pattern, inText, wholeOnly] of [
    [HOOKS_FILE_WORD, HOOKS_FILE_TEXT, false],
    [CODEX_CONFIG_WORD, CODEX_CONFIG_TEXT, true],
  ] as const) {
    const replaced =
      targets.some((target) => is(pattern, target.word) && (target.replaced || !wholeOnly)) ||
      (REMOVERS.test(program) && named(pattern)) ||
      (program === 'mv' && named(pattern)) ||
      (gitWrite && named(pattern)) ||
      (COPIERS.test(program) && is(pattern, last)) ||
      (program === 'loopguard' && loopguardWrites(args).some((word) => is(pattern, word))) ||
      ((program === 'tee' || program === 'sponge') &&
        named(pattern) &&
        !(wholeOnly && args.includes('-a'))) ||
      (program === 'dd' && args.some((word) => word.startsWith('of=') && is(pattern, word.slice(3))));
    if (replaced) return true;
    if (READERS.test(program) || program === 'git' || COPIERS.test(program)) continue;
    if (IN_PLACE.test(program) && !inPlace) continue;
    if (program === 'find' && !args.some((word) => word === '-delete' || word.startsWith('-exec'))) continue;
    const inScript = [...segment.matchAll(inText)].map((match) => match[1] as string);
    if (pattern === HOOKS_FILE_WORD && context.trustFile && segment.includes(context.trustFile))
      inScript.push(context.trustFile);
    if (!inScript.some((word) => holdsHooks(word, context))) continue;
    // an in-place edit or a script: Codex's config.toml only where it names its hooks
    if (!wholeOnly || /\bhooks\b|loopguard|trust_level|\bprojects\b/.test(segment)) return true;
  }
  return false;
}

/**
 * Whether each shell write of `shell` whose text is known (`literalWrites`) to a file it names
 * plainly keeps loopguard's hooks there, and the rest of the command with those writes taken out
 * (`undefined`: one does not keep them).
 */
function literalWritesKeep(shell: string, context: PathContext): string | undefined {
  let rest = shell;
  const { projectDir, trustFile } = context;
  for (const { whole, word, text, then, thenInWhole } of literalWrites(shell, context.env, projectDir)) {
    const path = pathOf(word, context);
    if (path === undefined) continue;
    const before = hooksFileText(path, trustFile);
    if (before !== undefined) {
      if (!keepsHooks(path, before, text, projectDir, trustFile)) return undefined;
      rest = rest.replace(whole, ' ');
      continue;
    }
    // written to a file of no agent's, then moved onto one: what it leaves there is the text (trust68)
    const to = then && movedOnto(then, path, context);
    const onto = to && hooksFileText(to, trustFile);
    if (to !== undefined && onto !== undefined) {
      if (!keepsHooks(to, onto, text, projectDir, trustFile)) return undefined;
      rest = rest.replace(thenInWhole ? whole : whole + then?.command, ' ');
    } else if (!thenInWhole) rest = rest.replace(whole, ' ');
  }
  return rest;
}

/**
 * The file a `mv` right after a write moves `from` (just written) onto; `undefined` when it moves
 * another, or `from` is a link (the write lands in the file it leads to) or has another name (a
 * hard link).
 */
function movedOnto(mv: { from: string; to: string }, from: string, context: PathContext): string | undefined {
  const to = pathOf(mv.to, context);
  if (to === undefined || pathOf(mv.from, context) !== from) return undefined;
  try {
    const stat = lstatSync(from);
    if (!stat.isFile() || stat.nlink > 1) return undefined;
  } catch {
    // not there yet: the write makes it
  }
  return to;
}

/**
 * Why the call is refused, or `undefined`: a file edit that leaves an agent's hooks file without
 * one of loopguard's hook events, or a shell command that writes one (see the file's comment).
 * @param env - the agent's environment, where a command's `~`, `$HOME`, `$CODEX_HOME` and
 *   `$CLAUDE_CONFIG_DIR` lead (default: this process's, a child of the agent).
 * @example hooksRemovedRefusal({ kind: 'before_tool', tool: 'Bash', input: { command: 'rm .claude/settings.json' }, ... }); // HOOKS_REMOVED_REFUSED
 */
export function hooksRemovedRefusal(
  event: HookEvent,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const call = beforeToolCall(event);
  if (call === undefined) return undefined;
  const input = call.input;
  const path = input.file_path ?? input.path;
  const writes = input.content !== undefined || input.old_string !== undefined || input.edits !== undefined;
  const trustFile = namedTrustFile(env, event.projectDir);
  if (typeof path === 'string' && writes) {
    const file = resolve(event.projectDir, path);
    const before = hooksFileText(file, trustFile);
    if (before !== undefined) {
      const after = editedText(before, input);
      if (after !== undefined && !keepsHooks(file, before, after, event.projectDir, trustFile))
        return HOOKS_REMOVED_REFUSED;
    }
  }
  for (const field of ['command', 'cmd']) {
    const value = input[field];
    const command = Array.isArray(value) ? value.join(' ') : value;
    // most commands name no agent's folder: read no further (a call of every session passes here)
    if (typeof command !== 'string') continue;
    if (!AGENT_NAMED.test(command) && !(trustFile !== undefined && command.includes(trustFile))) continue;
    for (const [, body] of command.matchAll(PATCH))
      if (!patchKeepsHooks(body as string, event.projectDir, trustFile)) return HOOKS_REMOVED_REFUSED;
    if (MCP_REMOVED.test(command)) return HOOKS_REMOVED_REFUSED;
    const shell = command.replace(PATCH, ' ');
    const moved = /(?:^|[\s;&|(])(?:cd|pushd)\s/.test(shell);
    const context = { projectDir: event.projectDir, env, moved, ...(trustFile && { trustFile }) };
    const rest = literalWritesKeep(shell, context);
    if (rest === undefined || shellSegments(rest).some((segment) => writesHooksFile(segment, context)))
      return HOOKS_REMOVED_REFUSED;
  }
  return undefined;
}
