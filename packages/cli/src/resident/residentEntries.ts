import { commandEntries, type PlannedEntry } from '../hook/hookSettings.js';
import { residentHookUrl } from './residentClient.js';
import type { ResidentConfig } from './residentConfig.js';

/**
 * Claude Code's hook entries of the resident mode: an `http` entry to the resident process on each
 * event the command hook is registered for (same matchers), one on `SessionEnd` (the session leaves
 * the resident), and a `command` entry on `SessionStart` that starts the resident when needed and
 * registers the session (`<loopguard> resident start`).
 *
 * The token is written in the `Authorization` header itself. Claude Code fills `$VAR` in a header
 * only from its own environment and only for the variables listed in `allowedEnvVars`; the only
 * place `init` could set such a variable is the `env` of the same settings file, which would also
 * hand the token to every command the agent runs.
 * @param loopguard - the shell command that runs loopguard (`'/usr/bin/node' '/…/bin.js'`).
 * @param timeoutSeconds - how long Claude Code waits for one answer.
 */
export function residentEntries(
  config: ResidentConfig,
  loopguard: string,
  timeoutSeconds: number,
): PlannedEntry[] {
  const http = {
    type: 'http',
    url: residentHookUrl(config),
    headers: { Authorization: `Bearer ${config.token}` },
    timeout: timeoutSeconds,
  };
  return [
    {
      event: 'SessionStart',
      matcher: null,
      entry: { type: 'command', command: `${loopguard} resident start`, timeout: timeoutSeconds },
    },
    ...commandEntries('claude', '', timeoutSeconds).map(({ event, matcher }) => ({
      event,
      matcher,
      entry: http,
    })),
    { event: 'SessionEnd', matcher: null, entry: http },
  ];
}
