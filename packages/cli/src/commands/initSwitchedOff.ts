import { join } from 'node:path';
import { readConfigFile } from '../files/configFiles.js';
import type { HookAgent } from '../hook/hookEvent.js';
import { HOOK_SWITCH_ENV, projectSwitchedOff } from '../hook/hookSwitch.js';

/**
 * What switches loopguard off where `init` just installed its hooks, in words
 * (`hook.enabled: false in loopguard.config.yaml`, `LOOPGUARD_HOOK=off in .claude/settings.json`),
 * or `undefined`: a repository can ship either, and `init` must not say "loopguard guards" there
 * without a word (trust43). Read: the project's configuration (project scope), and for Claude Code,
 * which hands its settings' `env` to its hooks and MCP servers and runs none with `disableAllHooks`,
 * those two keys of the settings file written and of the project's `.claude/settings.local.json`. A file that cannot be read or parsed
 * says nothing here (the hooks report it).
 * @param written - the settings file init wrote (as shown) and its new text.
 * @param projectDir - the project, or `undefined` for the user's settings.
 */
export function switchedOffBy(
  agent: HookAgent,
  written: { shown: string; text: string },
  projectDir: string | undefined,
): string | undefined {
  const offs: string[] = [];
  if (projectDir !== undefined) {
    const config = quietly(() => projectSwitchedOff(projectDir));
    if (config !== undefined) offs.push(`hook.enabled: false in ${config}`);
  }
  if (agent === 'claude') {
    const files = [written];
    if (projectDir !== undefined) {
      const local = join('.claude', 'settings.local.json');
      const text = quietly(() => readConfigFile(join(projectDir, local)).toString('utf8'));
      if (text !== undefined) files.push({ shown: local, text });
    }
    for (const { shown, text } of files) {
      const settings = quietly(() => JSON.parse(text.replace(/^\uFEFF/, '')));
      if (settings?.env?.[HOOK_SWITCH_ENV] === 'off') offs.push(`${HOOK_SWITCH_ENV}=off in ${shown}`);
      // Claude Code runs no hook at all then, loopguard's included
      if (settings?.disableAllHooks === true) offs.push(`disableAllHooks: true in ${shown}`);
    }
  }
  return offs.length === 0 ? undefined : offs.join('; ');
}

function quietly<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
