import type { Node } from 'jsonc-parser';
import type { HookAgent } from '../hook/hookEvent.js';
import { appendElement, appendProperty, membersOf, memberValue, removeMember } from './jsonText.js';
import { InvalidSettingsError, type SettingsText, withText } from './settingsText.js';

/**
 * The key that marks a hook entry as loopguard's. `loopguard init` recognises its own entries by
 * this key only, never by their command; both pinned CLIs run an entry that carries it (tested in
 * claudeHooks.e2e.test.ts and geminiHooks.e2e.test.ts).
 */
export const MARKER_KEY = 'loopguard';

/**
 * What `--remove` takes out with the entry once it is left empty: only the entry (and its group),
 * also the event's list (init added the list), also the `hooks` object (init added it), the
 * whole file (init made it: `--remove` leaves no `{}` where there was no file), or the file and
 * its folder (init made `.claude/` or `.gemini/` too: none is left behind empty).
 */
export type Owned = 'entry' | 'list' | 'hooks' | 'file' | 'folder';

/** The marker of an entry: `{"owns": "entry" | "list" | "hooks" | "file" | "folder"}` under {@link MARKER_KEY}. */
export interface Marker {
  /** What init added along with the entry. */
  owns: Owned;
}

/**
 * A hook entry loopguard writes, without its marker: a `command` entry today; another kind (an
 * `http` entry) is another value of this type.
 */
export type HookEntry = {
  /** The entry's kind in the CLI's settings (`command`). */
  type: string;
} & Record<string, unknown>;

/** One entry to install: on which event, under which matcher (`null`: the event takes none). */
export interface PlannedEntry {
  /** The CLI's event name (`PreToolUse`, `AfterTool`, ...). */
  event: string;
  /** The matcher of its group, or `null` for an event without matchers. */
  matcher: string | null;
  /** The entry, without its marker. */
  entry: HookEntry;
}

/** The longest Codex (0.169.0) lets a `SessionEnd` hook run, seconds: a longer timeout it cuts to this. */
export const CODEX_SESSION_END_TIMEOUT_MAX = 3;

/** The events each CLI registers the hook for, and whether the event takes a tool matcher. */
const EVENTS: Record<HookAgent, ReadonlyArray<readonly [event: string, matcher: string | null]>> = {
  claude: [
    ['PreToolUse', '*'],
    ['PostToolUse', '*'],
    ['PostToolUseFailure', '*'],
    // a reply's calls, once: the ones Claude Code refused before any other hook ran (refused69)
    ['PostToolBatch', null],
    ['Stop', null],
    ['SessionEnd', null],
  ],
  gemini: [
    ['BeforeTool', '.*'],
    ['AfterTool', '.*'],
    ['AfterAgent', null],
    ['SessionEnd', null],
  ],
  // Codex: an empty matcher matches every tool
  codex: [
    ['PreToolUse', ''],
    ['PostToolUse', ''],
    ['Stop', null],
    ['SessionEnd', null],
  ],
};

/** The events `loopguard init` registers for `agent`. */
export function hookEventsOf(agent: HookAgent): string[] {
  return EVENTS[agent].map(([event]) => event);
}

/**
 * The `command` entries that run `command` on each of `agent`'s events.
 * @param command - the shell command that runs the hook (`... hook claude`).
 * @param timeoutSeconds - how long the CLI lets one call run.
 */
export function commandEntries(agent: HookAgent, command: string, timeoutSeconds: number): PlannedEntry[] {
  // Claude Code and Codex take the timeout in seconds, Gemini CLI in milliseconds (and names its hooks).
  const entry: HookEntry =
    agent === 'gemini'
      ? { type: 'command', command, name: 'loopguard', timeout: timeoutSeconds * 1000 }
      : { type: 'command', command, timeout: timeoutSeconds };
  // a longer one Codex cuts, and says so at each start of its TUI (`⚠ … warnings`)
  const atEnd: HookEntry = { ...entry, timeout: Math.min(timeoutSeconds, CODEX_SESSION_END_TIMEOUT_MAX) };
  return EVENTS[agent].map(([event, matcher]) => ({
    event,
    matcher,
    entry: agent === 'codex' && event === 'SessionEnd' ? atEnd : entry,
  }));
}

/** The marker of `entry` (a hook entry's node), or `undefined` when the entry is not loopguard's. */
export function markerOf(entry: Node): Marker | undefined {
  if (entry.type !== 'object') return undefined;
  const marker = memberValue(entry, MARKER_KEY);
  if (marker?.type !== 'object') return undefined;
  const owns = memberValue(marker, 'owns')?.value;
  const known = owns === 'list' || owns === 'hooks' || owns === 'file' || owns === 'folder';
  return { owns: known ? owns : 'entry' };
}

/**
 * `settings` with exactly one loopguard entry per planned event, in its own group after the groups
 * already there; an entry of loopguard's already as planned is left where it is, so running it
 * again changes nothing. Only loopguard's entries (and what they own) change.
 * @param newFile - the file is new (`true`), and so is its folder (`'folder'`): its removal then
 *   takes them away. @default false
 * @throws InvalidSettingsError when `hooks` is not an object, or a planned event's value not a list
 */
export function installHooks(
  settings: SettingsText,
  plan: readonly PlannedEntry[],
  newFile: boolean | 'folder' = false,
): SettingsText {
  const hooksNode = memberValue(settings.json.root, 'hooks');
  if (hooksNode !== undefined && hooksNode.type !== 'object') {
    throw new InvalidSettingsError('"hooks" must be an object');
  }
  for (const { event } of plan) {
    const list = memberValue(hooksNode, event);
    if (list !== undefined && list.type !== 'array') {
      throw new InvalidSettingsError(`"hooks.${event}" must be a list`);
    }
  }
  const planned = new Set(plan.map(({ event }) => event));
  let next = removeOurs(settings, (event) => !planned.has(event), true);
  if (memberValue(next.json.root, 'hooks') === undefined) {
    const owns = newFile === 'folder' ? 'folder' : newFile ? 'file' : 'hooks';
    const hooks = Object.fromEntries(plan.map((item) => [item.event, [groupOf(item, owns)]]));
    return withText(next, appendProperty(next.json, next.json.root, 'hooks', hooks));
  }
  for (const item of plan) {
    const list = memberValue(memberValue(next.json.root, 'hooks'), item.event);
    if (list === undefined) {
      const hooks = memberValue(next.json.root, 'hooks') as Node;
      next = withText(next, appendProperty(next.json, hooks, item.event, [groupOf(item, 'list')]));
      continue;
    }
    const ours = oursIn(list);
    const owns = ours[0]?.marker.owns ?? 'entry';
    const wanted = groupOf(item, owns);
    const only = ours.length === 1 ? ours[0] : undefined;
    if (only !== undefined && membersOf(only.entries).length === 1 && sameValue(only.group, wanted)) continue;
    next = removeOurs(next, (event) => event === item.event, false);
    const emptied = memberValue(memberValue(next.json.root, 'hooks'), item.event) as Node;
    next = withText(next, appendElement(next.json, emptied, wanted));
  }
  return next;
}

/**
 * `settings` without loopguard's entries: a group they leave empty goes, and so does an event list
 * or the `hooks` object that loopguard added (its marker says so) once it is left empty. Everything
 * else stays byte for byte.
 */
export function removeHooks(settings: SettingsText): SettingsText {
  return removeOurs(settings, () => true, true);
}

/** Whether an entry of loopguard's says that `init` made the file (see {@link Owned}). */
export function ownsFile(settings: SettingsText): boolean {
  return ownsAny(settings, ['file', 'folder']);
}

/** Whether an entry of loopguard's says that `init` made the file's folder too. */
export function ownsFolder(settings: SettingsText): boolean {
  return ownsAny(settings, ['folder']);
}

function ownsAny(settings: SettingsText, kinds: Owned[]): boolean {
  return eventLists(settings).some(([, list]) =>
    oursIn(list).some(({ marker }) => kinds.includes(marker.owns)),
  );
}

/** Whether `settings` holds any entry of loopguard's. */
export function hasHooks(settings: SettingsText): boolean {
  return eventLists(settings).some(([, list]) => oursIn(list).length > 0);
}

/**
 * What runs loopguard without its marker (written by hand, or before the marker existed): a
 * `command` entry running `loopguard ... hook claude|gemini|codex` (or a clone's `bin.js`), an `mcp_tool`
 * entry of the `loopguard` server, an `http` entry of the old resident process. Each is named by
 * its command, server or URL.
 */
export function strayHooks(settings: SettingsText): string[] {
  return eventLists(settings).flatMap(([event, list]) =>
    oursIn(list, strayMarker).map(({ entry }) => `${event}: ${describe(entry)}`),
  );
}

/** `settings` without the entries {@link strayHooks} names (their empty groups go too). */
export function removeStrayHooks(settings: SettingsText): SettingsText {
  return removeOurs(settings, () => true, false, strayMarker);
}

function strayMarker(entry: Node): Marker | undefined {
  if (entry.type !== 'object' || markerOf(entry) !== undefined) return undefined;
  const text = (key: string) => {
    const value = memberValue(entry, key)?.value;
    return typeof value === 'string' ? value : '';
  };
  const stray =
    (text('type') === 'command' &&
      /loopguard|bin\.js/.test(text('command')) &&
      /\bhook\s+'?(claude|gemini|codex)\b/.test(text('command'))) ||
    (text('type') === 'mcp_tool' && text('server') === 'loopguard') ||
    (text('type') === 'http' && /^http:\/\/127\.0\.0\.1:\d+\/hook\/claude$/.test(text('url')));
  return stray ? { owns: 'entry' } : undefined;
}

function describe(entry: Node): string {
  const value = (key: string) => memberValue(entry, key)?.value;
  return String(value('command') ?? value('url') ?? `${value('server')}/${value('tool')}`);
}

interface OurEntry {
  marker: Marker;
  /** The entry's node. */
  entry: Node;
  /** The group holding it. */
  group: Node;
  /** The group's `hooks` list. */
  entries: Node;
}

function eventLists(settings: SettingsText): Array<[event: string, list: Node]> {
  const hooks = memberValue(settings.json.root, 'hooks');
  if (hooks?.type !== 'object') return [];
  return membersOf(hooks).flatMap((property) => {
    const [key, list] = property.children ?? [];
    // a key given twice: only the last is read, as by JSON.parse
    const event = key?.value as string;
    return list?.type === 'array' && memberValue(hooks, event) === list ? [[event, list]] : [];
  });
}

function oursIn(list: Node, marked: (entry: Node) => Marker | undefined = markerOf): OurEntry[] {
  return membersOf(list).flatMap((group) => {
    const entries = memberValue(group, 'hooks');
    if (entries?.type !== 'array') return [];
    return membersOf(entries).flatMap((entry) => {
      const marker = marked(entry);
      return marker === undefined ? [] : [{ marker, entry, group, entries }];
    });
  });
}

/** Takes out loopguard's entries of the events `which` picks, one at a time (offsets move). */
function removeOurs(
  settings: SettingsText,
  which: (event: string) => boolean,
  dropOwned: boolean,
  marked: (entry: Node) => Marker | undefined = markerOf,
): SettingsText {
  let next = settings;
  let ownsHooks = false;
  for (;;) {
    const found = eventLists(next)
      .filter(([event]) => which(event))
      .flatMap(([event, list]) => oursIn(list, marked).map((ours) => ({ event, list, ours })))[0];
    if (found === undefined) break;
    const { list, ours } = found;
    ownsHooks ||= ['hooks', 'file', 'folder'].includes(ours.marker.owns);
    const lastOfGroup = membersOf(ours.entries).length === 1;
    const lastOfList = lastOfGroup && membersOf(list).length === 1;
    const dropList = dropOwned && lastOfList && ours.marker.owns !== 'entry';
    const gone = dropList ? list : lastOfGroup ? ours.group : ours.entry;
    next = withText(next, removeMember(next.json, gone));
  }
  const hooks = memberValue(next.json.root, 'hooks');
  if (dropOwned && ownsHooks && hooks?.type === 'object' && membersOf(hooks).length === 0) {
    next = withText(next, removeMember(next.json, hooks));
  }
  return next;
}

function groupOf(item: PlannedEntry, owns: Owned): Record<string, unknown> {
  const entry = { ...item.entry, [MARKER_KEY]: { owns } satisfies Marker };
  return item.matcher === null ? { hooks: [entry] } : { matcher: item.matcher, hooks: [entry] };
}

/** Whether `node` holds `value` (keys in the same order). */
function sameValue(node: Node, value: unknown): boolean {
  return canonical(node) === JSON.stringify(value);
}

function canonical(node: Node): string {
  switch (node.type) {
    case 'object':
      return `{${membersOf(node)
        .map(({ children = [] }) => `${JSON.stringify(children[0]?.value)}:${canonical(children[1] as Node)}`)
        .join(',')}}`;
    case 'array':
      return `[${membersOf(node).map(canonical).join(',')}]`;
    default:
      return JSON.stringify(node.value);
  }
}
