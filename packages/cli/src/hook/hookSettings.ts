import type { HookAgent } from './hookEvent.js';

/** A settings file's JSON object. */
export type Settings = Record<string, unknown>;

interface HookCommand {
  type: 'command';
  command: string;
  [key: string]: unknown;
}

interface MatcherGroup {
  matcher?: string;
  hooks: HookCommand[];
  [key: string]: unknown;
}

/** The events each CLI registers the hook for, and whether the event takes a tool matcher. */
const EVENTS: Record<HookAgent, ReadonlyArray<readonly [event: string, matcher: string | null]>> = {
  claude: [
    ['PreToolUse', '*'],
    ['PostToolUse', '*'],
    ['PostToolUseFailure', '*'],
    ['Stop', null],
  ],
  gemini: [
    ['BeforeTool', '.*'],
    ['AfterTool', '.*'],
    ['AfterAgent', null],
  ],
};

/** The events `loopguard init` registers for `agent`. */
export function hookEventsOf(agent: HookAgent): string[] {
  return EVENTS[agent].map(([event]) => event);
}

/**
 * Whether a hook command is loopguard's for `agent`: it runs `loopguard` (or loopguard's `bin.js`)
 * with `hook <agent>` as its last words.
 */
export function isLoopguardCommand(command: unknown, agent: HookAgent): boolean {
  if (typeof command !== 'string') return false;
  return new RegExp(`(?:^|[\\s'"/])(?:loopguard|bin\\.js)['"]?\\s+hook\\s+${agent}\\s*$`).test(command);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `groups` (one event's list) without loopguard's hook entries for `agent`; a group left empty goes away. */
function withoutOurs(groups: unknown[], agent: HookAgent): unknown[] {
  return groups.flatMap((group: unknown) => {
    if (!isRecord(group) || !Array.isArray(group.hooks)) return [group];
    const others = group.hooks.filter(
      (hook: unknown) => !isRecord(hook) || !isLoopguardCommand(hook.command, agent),
    );
    if (others.length === group.hooks.length) return [group];
    return others.length === 0 ? [] : [{ ...group, hooks: others }];
  });
}

/**
 * `settings` without loopguard's hook entries for `agent`: other hooks of the same group, other
 * groups, other events and every other key are kept as they were, in their order; a group, an event
 * list or the `hooks` object that only held loopguard's entries goes away.
 */
export function removeHooks(settings: Settings, agent: HookAgent): Settings {
  if (!isRecord(settings.hooks)) return settings;
  const hooks: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept = withoutOurs(groups, agent);
    if (kept.length > 0 || groups.length === 0) hooks[event] = kept;
  }
  const { hooks: _removed, ...rest } = settings;
  return Object.keys(hooks).length > 0 ? { ...settings, hooks } : rest;
}

/**
 * `settings` with loopguard's hook for `agent` on each of its events, after the hooks already
 * there (an older loopguard entry is replaced, so running it again changes nothing). Keys keep
 * their order; new events come last.
 * @param command - the shell command that runs the hook (`... hook claude`).
 * @param timeoutSeconds - how long the CLI lets one call run.
 */
export function addHooks(
  settings: Settings,
  agent: HookAgent,
  command: string,
  timeoutSeconds: number,
): Settings {
  const hooks: Record<string, unknown> = isRecord(settings.hooks) ? { ...settings.hooks } : {};
  // Claude Code takes the timeout in seconds, Gemini CLI in milliseconds.
  const timeout = agent === 'claude' ? timeoutSeconds : timeoutSeconds * 1000;
  const entry: HookCommand =
    agent === 'gemini'
      ? { type: 'command', command, name: 'loopguard', timeout }
      : { type: 'command', command, timeout };
  for (const [event, matcher] of EVENTS[agent]) {
    const group: MatcherGroup = matcher === null ? { hooks: [entry] } : { matcher, hooks: [entry] };
    const existing = Array.isArray(hooks[event]) ? withoutOurs(hooks[event] as unknown[], agent) : [];
    hooks[event] = [...existing, group];
  }
  return { ...settings, hooks };
}
