import { basename } from 'node:path';
import { findConfigFile, parseConfigText, readConfigFile } from '../files/configFiles.js';

/** The environment variable that switches the hook off for one session: `LOOPGUARD_HOOK=off claude`. */
export const HOOK_SWITCH_ENV = 'LOOPGUARD_HOOK';

/**
 * Whether the environment switches loopguard's hooks off (`LOOPGUARD_HOOK=off`): the one place that
 * decides it for every door (the hook process, the MCP server, which Claude Code starts with its
 * own environment, and the status line, which says so). The project's `hook.enabled: false` and a
 * session's `enabled = 0` are decided in `guardProject` and `guardSession`, which both doors share
 * (the status line reads the first with {@link projectSwitchedOff}).
 */
export function hookSwitchedOff(env: NodeJS.ProcessEnv): boolean {
  return env[HOOK_SWITCH_ENV] === 'off';
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
