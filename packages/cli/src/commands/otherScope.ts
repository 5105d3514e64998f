import type { HookAgent } from '../hook/hookEvent.js';
import { hasHooks, removeHooks, removeStrayHooks, strayHooks } from '../install/hookSettings.js';
import { type FoundSettingsFile, readSettingsFile } from '../install/settingsFile.js';
import { readSettingsText, type SettingsText, settingsFileText } from '../install/settingsText.js';
import type { CliIo } from '../terminal/cliIo.js';
import type { InitOptions } from './initOptions.js';
import { settingsFileOf } from './settingsLocation.js';

/** The other scope's settings file with loopguard's hooks taken out (`--replace`). */
export interface OtherScopeChange {
  /** The file as it was read: the path written, its text and mode. */
  found: FoundSettingsFile;
  /** The file as it is. */
  settings: SettingsText;
  /** Its text without loopguard's hooks. */
  text: string;
  /** The file's path. */
  file: string;
  /** That scope: a project directory, or `null` for the user's. */
  project: string | null;
}

/**
 * Loopguard hooks in the other scope (the user's settings for a project, a project's for the
 * user) reach loopguard a second time on every call (counted once): said, or with `--replace`
 * planned to be taken out there (with the MCP server of that scope, which would be left without
 * the hook that refuses the model's call of it).
 */
export function otherScope(
  agent: HookAgent,
  scope: 'user' | 'project',
  options: InitOptions,
  io: CliIo,
): OtherScopeChange | undefined {
  if (options.remove) return undefined;
  const otherScopeName = scope === 'user' ? 'project' : 'user';
  let file: string;
  try {
    file = settingsFileOf(agent, otherScopeName, io);
  } catch {
    return undefined;
  }
  if (file === settingsFileOf(agent, scope, io)) return undefined;
  let found: FoundSettingsFile;
  let other: SettingsText;
  try {
    found = readSettingsFile(file, (path) => path);
    other = readSettingsText(found.text ?? '', agent);
  } catch {
    return undefined;
  }
  if (!hasHooks(other) && strayHooks(other).length === 0) return undefined;
  if (!options.replace) {
    io.stdout(
      `${file} also runs loopguard's hooks: every call reaches loopguard twice (counted once); --replace takes them out there\n`,
    );
    return undefined;
  }
  const text = settingsFileText(removeStrayHooks(removeHooks(other)));
  return { found, settings: other, text, file, project: otherScopeName === 'user' ? null : io.cwd };
}
