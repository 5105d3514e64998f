import { claudeConfigFile } from '../files/agentHome.js';
import { recordedInstalls, recordOf, type ServerRecord } from '../install/installRecord.js';
import { mcpServerEntry, serverPath, withServer } from '../install/mcpRegistration.js';
import { type FoundSettingsFile, readSettingsFile } from '../install/settingsFile.js';
import type { CliIo } from '../terminal/cliIo.js';
import { editSettings } from './editSettings.js';
import type { InitOptions } from './initOptions.js';
import { loopguardArgv } from './loopguardCommand.js';

/** The change of Claude Code's configuration `init` makes, and what to record of the server. */
export interface ServerChange {
  /** The new text of the file, or `undefined` when it stays as it is. */
  change?: {
    found: FoundSettingsFile;
    text: string;
    file: string;
    /** Whether the server is added (else only taken out). */
    adds: boolean;
    /** Whether the file goes: init made it, and the server taken out was all it held (sess68). */
    removesFile: boolean;
    /** What changed, for the user. */
    what: string;
  };
  /** The server to record with the install (none when it was taken out). */
  record?: { server: ServerRecord };
}

/**
 * Claude Code's `~/.claude.json` with loopguard's MCP server added (the fast path) or taken out
 * (`--remove`, `--command-hooks`), and taken out of the other scope when `--replace` takes that
 * scope's hooks out (`otherProject`: that scope; `null` for the user's).
 */
export function serverChange(
  options: InitOptions,
  fast: boolean,
  project: string | null,
  otherProject: string | null | undefined,
  io: CliIo,
  home: string,
): ServerChange {
  const file = claudeConfigFile(io.env);
  const found = readSettingsFile(file, (path) => path);
  const path = serverPath(project ?? undefined);
  const wanted = fast && !options.remove;
  const entry = mcpServerEntry(options.command ?? loopguardArgv());
  const recordedAt = (where: string | null, keys: string[]) => {
    const server = recordOf(home, 'claude', where)?.server;
    return server?.file === file && server.path.join('\0') === keys.join('\0') ? server : undefined;
  };
  const ownedOf = (where: string | null, keys: string[]) => recordedAt(where, keys)?.owned;
  const recorded = ownedOf(project, path);
  // whether init made the file: when it adds a server to no file, and while any server it made the
  // file for is recorded (a project's server beside the user's is in the same file init made)
  const madeFile =
    recordedInstalls(home).some((r) => r.server?.file === file && r.server.madeFile === true) ||
    (wanted && found.text === null);
  const before = found.text ?? '';
  const what: string[] = [];
  const edit = editSettings(() => withServer(before, path, wanted ? entry : undefined, recorded), file);
  let text = edit.text;
  if (text !== before)
    what.push(
      `loopguard's MCP server ${wanted ? 'registered for' : 'taken out of'} ${project ?? 'every project'} (${keysOf(path)})`,
    );
  if (otherProject !== undefined) {
    const otherPath = serverPath(otherProject ?? undefined);
    const owned = ownedOf(otherProject, otherPath);
    const cleaned = editSettings(() => withServer(text, otherPath, undefined, owned), file).text;
    if (cleaned !== text)
      what.push(`loopguard's MCP server taken out of ${otherProject ?? 'every project'} (--replace)`);
    text = cleaned;
  }
  const owned = edit.added ? edit.owned : (recorded ?? edit.owned);
  const record = wanted ? { server: { file, path, owned, ...(madeFile ? { madeFile } : {}) } } : undefined;
  const removesFile = !wanted && madeFile && isEmptyObject(text);
  return {
    ...(text === before
      ? {}
      : { change: { found, text, file, adds: wanted, removesFile, what: what.join('; ') } }),
    ...(record === undefined ? {} : { record }),
  };
}

/** `projects["/repo"].mcpServers.loopguard`: the path of a value, as JavaScript would write it. */
function keysOf(path: readonly string[]): string {
  return path
    .map((key, index) =>
      /^[A-Za-z_$][\w$]*$/.test(key) ? `${index === 0 ? '' : '.'}${key}` : `[${JSON.stringify(key)}]`,
    )
    .join('');
}

/**
 * Whether Claude Code's configuration holds nothing: what is left of a file init made once its
 * server is taken out, and Claude Code never wrote to it.
 */
export function isEmptyObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return (
      typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
    );
  } catch {
    return false;
  }
}
