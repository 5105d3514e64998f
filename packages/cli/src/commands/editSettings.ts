import type { HookAgent } from '../hook/hookEvent.js';
import { InvalidSettingsError, readSettingsText, type SettingsText } from '../install/settingsText.js';
import { CliError } from '../terminal/CliError.js';

/** The text of `agent`'s settings file `shown`, read; a file it refuses is one line naming it ({@link editSettings}). */
export function parseSettings(text: string, agent: HookAgent, shown: string): SettingsText {
  return editSettings(() => readSettingsText(text, agent), shown);
}

/**
 * Runs `edit`, reporting a settings file (or Claude Code's configuration) it refuses as one line
 * naming the file.
 * @throws CliError (usage): `<shown> <the problem>; nothing written`
 */
export function editSettings<T>(edit: () => T, shown: string): T {
  try {
    return edit();
  } catch (error) {
    if (error instanceof InvalidSettingsError)
      throw new CliError(`${shown} ${error.message}; nothing written`);
    throw error;
  }
}
