import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { readConfigFile } from '../files/configFiles.js';
import type { HookAgent } from '../hook/hookEvent.js';
import {
  HOOK_SWITCH_ENV,
  hookSwitchedOff,
  hookSwitchValue,
  hookSwitchWords,
  projectSwitchedOff,
} from '../hook/hookSwitch.js';

/**
 * What switches loopguard off where `init` just installed its hooks, in words
 * (`hook.enabled: false in loopguard.config.yaml`, `LOOPGUARD_HOOK=off in .claude/settings.json`),
 * or `undefined`: a repository can ship either, and `init` must not say "loopguard guards" there
 * without a word (trust43). Read: the project's configuration (project scope), and for Claude Code,
 * which hands its settings' `env` to its hooks and MCP servers and runs none with `disableAllHooks`,
 * those two keys of the settings file written and of the project's `.claude/settings.local.json`. A file that cannot be read or parsed
 * says nothing here (the hooks report it).
 * For Codex, its `hooks` feature off (`codex_hooks`, the legacy alias) in `$CODEX_HOME/config.toml`
 * or the project's `.codex/config.toml`, which Codex 0.169.0 reads once the user trusts the project
 * (trust62).
 * And `LOOPGUARD_HOOK=off` (or `0`, `false`, `no`: `hookSwitchValue`) in init's own environment: the shell that exported it hands it to every
 * agent started from it, and they to their hooks and to loopguard's MCP server (qa70).
 * @param written - the settings file init wrote (as shown) and its new text.
 * @param projectDir - the project, or `undefined` for the user's settings.
 * @param codexHome - Codex's home folder (for Codex only), or `undefined`.
 * @param env - init's environment.
 */
export function switchedOffBy(
  agent: HookAgent,
  written: { shown: string; text: string },
  projectDir: string | undefined,
  codexHome?: string,
  env: NodeJS.ProcessEnv = {},
): string | undefined {
  const offs: string[] = [];
  if (hookSwitchedOff(env))
    offs.push(
      `${hookSwitchWords(env)} in this shell's environment, which an agent started from it hands to its hooks`,
    );
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
      const value = settings?.env?.[HOOK_SWITCH_ENV];
      if (hookSwitchValue(value) === 'off')
        offs.push(`${HOOK_SWITCH_ENV}=${String(value).trim()} in ${shown}`);
      // Claude Code runs no hook at all then, loopguard's included
      if (settings?.disableAllHooks === true) offs.push(`disableAllHooks: true in ${shown}`);
    }
  }
  if (agent === 'codex') {
    const home = codexHome === undefined ? undefined : join(codexHome, 'config.toml');
    const files = home === undefined ? [] : [{ shown: home, path: home }];
    if (projectDir !== undefined)
      files.push({ shown: join('.codex', 'config.toml'), path: join(projectDir, '.codex', 'config.toml') });
    for (const { shown, path } of files) {
      const config = quietly(() => parseToml(readConfigFile(path).toString('utf8')));
      const features = (config as { features?: Record<string, unknown> } | undefined)?.features;
      for (const key of ['hooks', 'codex_hooks'])
        if (features?.[key] === false) offs.push(`${key} = false in [features] of ${shown}`);
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
