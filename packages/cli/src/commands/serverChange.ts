import { claudeConfigFile } from '../files/agentHome.js';
import { recordOf, type ServerRecord } from '../install/installRecord.js';
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
  const ownedOf = (where: string | null, keys: string[]) => {
    const server = recordOf(home, 'claude', where)?.server;
    return server?.file === file && server.path.join('\0') === keys.join('\0') ? server.owned : undefined;
  };
  const recorded = ownedOf(project, path);
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
  const record = wanted ? { server: { file, path, owned } } : undefined;
  return {
    ...(text === before ? {} : { change: { found, text, file, adds: wanted, what: what.join('; ') } }),
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
