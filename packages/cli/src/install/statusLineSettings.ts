import { appendProperty, memberValue, removeMember } from './jsonText.js';
import { type SettingsText, withText } from './settingsText.js';

/**
 * Whether `command` is a status line that `init` wrote: loopguard's bin then `statusline`, or node
 * running loopguard's bundled `statusline.cjs`.
 */
function isOurs(command: unknown): boolean {
  return (
    typeof command === 'string' &&
    (/(loopguard|bin\.js)'?\s+statusline\s*$/.test(command) ||
      /\/bundle\/statusline\.cjs'?\s*$/.test(command))
  );
}

/**
 * Seconds between the runs Claude Code makes of the status line besides those after each reply
 * (`statusLine.refreshInterval`, Claude Code 2.1.97 and later): a session stopped after a call ran
 * gets no reply after the stop, and its line would keep saying it was running (qa68).
 */
export const STATUS_LINE_REFRESH_SECONDS = 10;

/** What {@link withStatusLine} did to Claude Code's `statusLine`, for `init` to say. */
export type StatusLineChange = 'added' | 'kept-ours' | 'kept-users' | 'replaced' | 'removed' | 'none';

/**
 * Claude Code's settings with loopguard's status line (`statusLine: { type: 'command', command,
 * refreshInterval }`): added when there is none, left as it is when it is loopguard's as this
 * `init` writes it (an earlier one's is set anew), and a status line of the user's
 * kept unless `replace` (it is the user's; loopguard's is one line among what they chose to see).
 * @param command - the shell command that runs `loopguard statusline`; `undefined` takes loopguard's out.
 * @example withStatusLine(settings, "'/usr/bin/node' '/opt/loopguard/bin.js' statusline", false).change; // 'added'
 */
export function withStatusLine(
  settings: SettingsText,
  command: string | undefined,
  replace: boolean,
): { settings: SettingsText; change: StatusLineChange } {
  const root = settings.json.root;
  const current = memberValue(root, 'statusLine');
  const ours = current !== undefined && isOurs(memberValue(current, 'command')?.value);
  if (command === undefined) {
    if (!ours || current === undefined) return { settings, change: 'none' };
    return { settings: withText(settings, removeMember(settings.json, current)), change: 'removed' };
  }
  const wanted = { type: 'command', command, refreshInterval: STATUS_LINE_REFRESH_SECONDS };
  if (current === undefined)
    return {
      settings: withText(settings, appendProperty(settings.json, root, 'statusLine', wanted)),
      change: 'added',
    };
  if (
    ours &&
    memberValue(current, 'command')?.value === command &&
    memberValue(current, 'refreshInterval')?.value === STATUS_LINE_REFRESH_SECONDS
  )
    return { settings, change: 'kept-ours' };
  if (!ours && !replace) return { settings, change: 'kept-users' };
  const without = withText(settings, removeMember(settings.json, current));
  return {
    settings: withText(without, appendProperty(without.json, without.json.root, 'statusLine', wanted)),
    change: ours ? 'added' : 'replaced',
  };
}
