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

/** A TOML table header of a project (`[projects."/repo"]`, `[projects.'/repo']`), and its trust key. */
const PROJECT_TABLE = /^\s*\[\s*projects\s*\.\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*\]\s*(?:#.*)?$/;
const TABLE = /^\s*\[/;
const TRUST_LEVEL = /^\s*trust_level\s*=\s*(?:"([^"]*)"|'([^']*)')/;

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

/**
 * Whether Codex trusts `projectDir` by its `config.toml`'s text (`undefined`: no file): the
 * nearest of the project's folder and the folders above it (its repository's root) that has a
 * `[projects."<dir>"] trust_level` decides, and only `"trusted"` trusts. Read line by line, the
 * way Codex writes the table (no TOML parser in the hook: its start is measured); a form this
 * does not read (an inline table) counts as no trust.
 */
export function codexTrusts(text: string | undefined, projectDir: string): boolean {
  const levels = new Map<string, string>();
  let table: string | undefined;
  for (const line of (text ?? '').split('\n')) {
    const header = PROJECT_TABLE.exec(line);
    if (header !== null) table = (header[1]?.replace(/\\(.)/g, '$1') ?? header[2]) as string;
    else if (TABLE.test(line)) table = undefined;
    const level = table === undefined ? null : TRUST_LEVEL.exec(line);
    if (table !== undefined && level) levels.set(table, (level[1] ?? level[2]) as string);
  }
  for (let dir = resolve(projectDir); ; dir = dirname(dir)) {
    const level = levels.get(dir);
    if (level !== undefined) return level === 'trusted';
    if (dirname(dir) === dir) return false;
  }
}
