import { dirname, resolve } from 'node:path';

/**
 * Whether an agent trusts a project by the file the user's trust is kept in (trust65): Gemini CLI
 * runs no project hook, and Codex loads no project `.codex/`, in a folder it does not trust. Read
 * as the pinned CLIs read it (Gemini CLI 0.61.0's `isPathTrusted`, Codex 0.169.0's `trust_level`).
 */

/** Gemini CLI's trusted folders file, in its folder (`~/.gemini`). */
export const GEMINI_TRUST_NAME = 'trustedFolders.json';

/** JSONC's comments and trailing commas, strings kept (Gemini CLI strips them before parsing). */
const JSONC_EXTRA = /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\/|,(?=\s*[}\]])/g;

/**
 * Whether Gemini CLI trusts `projectDir` by its trusted folders file's text (`undefined`: no
 * file): the longest rule whose folder holds the project decides (`TRUST_PARENT` trusts the rule's
 * parent); no rule, or a file it cannot read, trusts nothing.
 */
export function geminiTrusts(text: string | undefined, projectDir: string): boolean {
  let rules: unknown;
  try {
    rules = JSON.parse((text ?? '{}').replace(JSONC_EXTRA, (_match, string?: string) => string ?? ''));
  } catch {
    return false;
  }
  if (typeof rules !== 'object' || rules === null) return false;
  const project = resolve(projectDir);
  let longest = -1;
  let level: unknown;
  for (const [path, value] of Object.entries(rules)) {
    const folder = resolve(value === 'TRUST_PARENT' ? dirname(path) : path);
    const holds = project === folder || project.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
    if (holds && path.length > longest) {
      longest = path.length;
      level = value;
    }
  }
  return level === 'TRUST_FOLDER' || level === 'TRUST_PARENT';
}

/**
 * Gemini CLI's trust in the project from its environment, read before any file (0.61.0's
 * `checkPathTrust`; trust66): `GEMINI_RESTRICTED_MODE=true` or `GEMINI_CLI_TRUST_WORKSPACE=false`
 * trust nothing, `GEMINI_CLI_TRUST_WORKSPACE=true` (what `--skip-trust` sets) every folder;
 * `undefined`: the files decide.
 */
export function geminiEnvTrust(env: Record<string, string | undefined>): boolean | undefined {
  if (env.GEMINI_RESTRICTED_MODE === 'true' || env.GEMINI_CLI_TRUST_WORKSPACE === 'false') return false;
  return env.GEMINI_CLI_TRUST_WORKSPACE === 'true' ? true : undefined;
}

/**
 * Whether Gemini CLI's user settings (their text; `undefined`: no file) switch folder trust off
 * (`security.folderTrust.enabled: false`; on by default), which trusts every folder.
 */
export function geminiTrustOff(text: string | undefined): boolean {
  try {
    const settings = JSON.parse(
      (text ?? '{}').replace(JSONC_EXTRA, (_match, string?: string) => string ?? ''),
    );
    return settings?.security?.folderTrust?.enabled === false;
  } catch {
    return false;
  }
}

/** One part of a TOML key (bare, `"basic"` or `'literal'`), and a string value. */
const KEY_PART = /^\s*(?:([\w-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*/;
const STRING = /^\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/;
const OTHER_VALUE = /^(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^,{}[\]"'#]+)/;

/** A TOML key at the start of `text` (`projects."/p".trust_level`) and the text after it. */
function readKey(text: string): [key: string[], rest: string] | undefined {
  const key: string[] = [];
  for (let rest = text; ; rest = rest.slice(1)) {
    const part = KEY_PART.exec(rest);
    if (part === null) return undefined;
    key.push(part[1] ?? part[2]?.replace(/\\(.)/g, '$1') ?? (part[3] as string));
    rest = rest.slice(part[0].length);
    if (!rest.startsWith('.')) return [key, rest];
  }
}

/**
 * Reads the value at the start of `text` under `key`, calling `found` for each string in it (an
 * inline table's too, with their keys); the text after it, `undefined` when it is no value read.
 */
function readValue(
  text: string,
  key: string[],
  found: (key: string[], value: string) => void,
): string | undefined {
  let rest = text.trimStart();
  const string = STRING.exec(rest);
  if (string !== null) {
    found(key, string[1]?.replace(/\\(.)/g, '$1') ?? (string[2] as string));
    return rest.slice(string[0].length);
  }
  const close = rest.startsWith('{') ? '}' : rest.startsWith('[') ? ']' : undefined;
  if (close === undefined) return rest.replace(OTHER_VALUE, '');
  for (rest = rest.slice(1).trimStart(); !rest.startsWith(close); rest = rest.trimStart()) {
    let inner = key;
    if (close === '}') {
      const [name, after] = readKey(rest) ?? [];
      if (name === undefined || !after?.startsWith('=')) return undefined;
      [inner, rest] = [[...key, ...name], after.slice(1)];
    }
    const after = readValue(rest, inner, found);
    if (after === undefined || after === rest) return undefined; // no value: not TOML this reads
    rest = after.trimStart().replace(/^,/, '');
  }
  return rest.slice(1);
}

/**
 * TOML's text as its lines of code (trust67): comments taken out, and each multi-line string
 * (`"""…"""`, `'''…'''`) made a one-line basic string of its text (`strings: false`: an empty one),
 * so no line inside it reads as a table, a key or a hook. A string left open runs to the end.
 * @param strings - keep a multi-line string's text (default: `true`); `false` leaves `""`.
 */
export function tomlCode(text: string, strings = true): string {
  let code = '';
  for (let at = 0; at < text.length; ) {
    const char = text[at] as string;
    const quote = text.slice(at, at + 3);
    if (quote === '"""' || quote === "'''") {
      let end = text.indexOf(quote, at + 3);
      while (quote === '"""' && end !== -1 && /(?:^|[^\\])(?:\\\\)*\\$/.test(text.slice(at + 3, end)))
        end = text.indexOf(quote, end + 1);
      if (end === -1) return code + text.slice(at);
      // up to two more quotes before the closing three are the string's own
      const close = end;
      while (text[end + 3] === quote[0] && end < close + 2) end++;
      const body = text.slice(at + 3, end).replace(/^\r?\n/, '');
      code += strings ? `"${body.replace(/[\\"]/g, '\\$&').replace(/\r?\n/g, '\\n')}"` : '""';
      at = end + 3;
    } else if (char === '"' || char === "'") {
      let end = at + 1;
      while (end < text.length && text[end] !== char && text[end] !== '\n')
        end += char === '"' && text[end] === '\\' ? 2 : 1;
      end = Math.min(end + (text[end] === char ? 1 : 0), text.length);
      code += text.slice(at, end);
      at = end;
    } else if (char === '#') {
      const line = text.indexOf('\n', at);
      at = line === -1 ? text.length : line;
    } else {
      code += char;
      at++;
    }
  }
  return code;
}

/** How many brackets (`[`, `{`) a line of TOML code opens and leaves open (its strings' not counted). */
function bracketDepth(line: string): number {
  let depth = 0;
  for (const [, bracket] of line.matchAll(/"(?:[^"\\]|\\.)*"?|'[^']*'?|([[\]{}])/g))
    if (bracket !== undefined) depth += bracket === '[' || bracket === '{' ? 1 : -1;
  return depth;
}

/**
 * The lines of TOML code, a value over several lines (an array, an inline table) joined into one
 * where its brackets close; one that never closes is left to its first line (not TOML: skipped).
 */
function tomlLines(text: string): string[] {
  const lines = tomlCode(text).split('\n');
  const joined: string[] = [];
  for (let at = 0; at < lines.length; at++) {
    let line = lines[at] as string;
    let depth = bracketDepth(line);
    let end = at;
    while (depth > 0 && end + 1 < lines.length) {
      end++;
      depth += bracketDepth(lines[end] as string);
      line += ` ${lines[end]}`;
    }
    if (depth <= 0) at = end;
    joined.push(depth <= 0 ? line : (lines[at] as string));
  }
  return joined;
}

/**
 * Whether Codex trusts `projectDir` by its `config.toml`'s text (`undefined`: no file): the
 * nearest of the project's folder and the folders above it (its repository's root) that has a
 * `projects."<dir>".trust_level` decides, and only `"trusted"` trusts. Read line by line (no TOML
 * parser in the hook: its start is measured), in the forms TOML gives the key: a table of its own
 * (`[projects."/p"]`, the form Codex writes), a dotted key, an inline table (trust66).
 */
export function codexTrusts(text: string | undefined, projectDir: string): boolean {
  const levels = new Map<string, string>();
  const found = (key: string[], value: string) => {
    if (key.length === 3 && key[0] === 'projects' && key[2] === 'trust_level')
      levels.set(key[1] as string, value);
  };
  let table: string[] = [];
  for (const line of tomlLines(text ?? '')) {
    const header = /^\s*\[\[?/.exec(line);
    if (header !== null) {
      table = readKey(line.slice(header[0].length))?.[0] ?? [];
      continue;
    }
    const [key, rest] = readKey(line) ?? [];
    if (key !== undefined && rest?.startsWith('=')) readValue(rest.slice(1), [...table, ...key], found);
  }
  for (let dir = resolve(projectDir); ; dir = dirname(dir)) {
    const level = levels.get(dir);
    if (level !== undefined) return level === 'trusted';
    if (dirname(dir) === dir) return false;
  }
}
