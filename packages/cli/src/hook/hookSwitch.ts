import { basename } from 'node:path';
import { findConfigFile, parseConfigText, readConfigFile } from '../files/configFiles.js';

/** The environment variable that switches the hook off for one session: `LOOPGUARD_HOOK=off claude`. */
export const HOOK_SWITCH_ENV = 'LOOPGUARD_HOOK';

/**
 * The values of {@link HOOK_SWITCH_ENV} that switch the hooks off, read trimmed and in any case
 * (`off`, `OFF`, ` 0 `, `false`, `no`): what a user types for "off" (trust71).
 */
const OFF_VALUES = new Set(['off', '0', 'false', 'no']);

/** The values that leave them on, read the same way; unset too. */
const ON_VALUES = new Set(['', 'on', '1', 'true', 'yes']);

/**
 * What a value of the switch (the environment's, or a settings file's `env` key) says: `off`,
 * `on` (unset, empty, `on`, `1`, `true`, `yes`), or `unknown` (a typo, `of`), which leaves the
 * hooks on, the safe side, and is said where the user reads it (`init`'s warning, the status line):
 * the one rule every door reads.
 */
export function hookSwitchValue(value: unknown): 'off' | 'on' | 'unknown' {
  if (value === undefined) return 'on';
  if (typeof value !== 'string') return 'unknown';
  const word = value.trim().toLowerCase();
  return OFF_VALUES.has(word) ? 'off' : ON_VALUES.has(word) ? 'on' : 'unknown';
}

/**
 * Whether the environment switches loopguard's hooks off (`LOOPGUARD_HOOK=off`, or another of the
 * values {@link hookSwitchValue} reads as off): the one place that
 * decides it for every door (the hook process, the MCP server, which Claude Code starts with its
 * own environment, and the status line, which says so). The project's `hook.enabled: false` and a
 * session's `enabled = 0` are decided in `guardProject` and `guardSession`, which both doors share
 * (the status line reads the first with {@link projectSwitchedOff}).
 */
export function hookSwitchedOff(env: NodeJS.ProcessEnv): boolean {
  return hookSwitchValue(env[HOOK_SWITCH_ENV]) === 'off';
}

/**
 * The switch as the user set it (`LOOPGUARD_HOOK=0`), for the words that name it.
 * @example hookSwitchWords({ LOOPGUARD_HOOK: ' OFF ' }); // 'LOOPGUARD_HOOK=OFF'
 */
export function hookSwitchWords(env: NodeJS.ProcessEnv): string {
  return `${HOOK_SWITCH_ENV}=${(env[HOOK_SWITCH_ENV] ?? '').trim()}`;
}

/**
 * What the user is told when the switch holds a value that is neither on nor off (`LOOPGUARD_HOOK=of`),
 * or `undefined`: the hooks stay on.
 */
export function unknownHookSwitch(env: NodeJS.ProcessEnv): string | undefined {
  if (hookSwitchValue(env[HOOK_SWITCH_ENV]) !== 'unknown') return undefined;
  return `${HOOK_SWITCH_ENV}=${JSON.stringify(env[HOOK_SWITCH_ENV])} is neither off (off, 0, false, no) nor on: loopguard stays on`;
}

/**
 * Whether a YAML configuration could switch the hooks off: only a `false` (`false`, `False`,
 * `FALSE`; or another schema's through a `%YAML` directive) under an `enabled` key (or one written
 * with escapes) does. The others are not parsed: loading the YAML parser is ≈ 40 ms of CPU, more
 * than the rest of the status line.
 */
const couldSwitchOff = (text: string) => /enabled|\\/.test(text) && /false|%YAML/i.test(text);

/**
 * The name of the configuration file that switches the project's hooks off (`hook.enabled: false`,
 * which `readHookConfig` reads as `enabled: false`), or `undefined`: for the status line, which
 * must not say "watching" where the hooks stay silent. A JSON file is always parsed; a YAML one
 * only when it {@link couldSwitchOff}.
 * @throws on a file that cannot be read or parsed.
 */
export function projectSwitchedOff(projectDir: string): string | undefined {
  const file = findConfigFile(projectDir);
  if (file === undefined) return undefined;
  const text = readConfigFile(file).toString('utf8');
  if (!file.endsWith('.json') && !couldSwitchOff(text)) return undefined;
  const hook = (parseConfigText(file, text) as { hook?: { enabled?: unknown } | null } | null)?.hook;
  return hook?.enabled === false ? basename(file) : undefined;
}
