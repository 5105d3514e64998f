/** The environment variable that switches the hook off for one session: `LOOPGUARD_HOOK=off claude`. */
export const HOOK_SWITCH_ENV = 'LOOPGUARD_HOOK';

/**
 * Whether the environment switches loopguard's hooks off (`LOOPGUARD_HOOK=off`): the one place that
 * decides it for every door (the hook process, the MCP server, which Claude Code starts with its
 * own environment, and the status line, which says so). The project's `hook.enabled: false` and a
 * session's `enabled = 0` are decided in `guardProject` and `guardSession`, which both doors share.
 */
export function hookSwitchedOff(env: NodeJS.ProcessEnv): boolean {
  return env[HOOK_SWITCH_ENV] === 'off';
}
