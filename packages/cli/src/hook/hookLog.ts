import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ownStateFolder } from '../state/stateFolder.js';
import { checkFoundState } from '../state/stateSchema.js';
import { printable } from '../terminal/terminalText.js';
import type { HookEvent } from './hookEvent.js';

/**
 * Opens the log to append, never through a symbolic link: a `hook.log` linked to a shell profile
 * or another file of the user's would receive lines with the event's text in them.
 */
const APPEND_NO_LINK = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/**
 * Appends one line to `<projectDir>/.loopguard/hook.log`, its reason's control characters shown as
 * U+FFFD (`printable`, as every door that prints text it did not write); a log that cannot be written is given up
 * silently, and so is one whose `.loopguard` is refused (a symbolic link, another user's) or that
 * is itself a symbolic link: nothing is written into a folder or file loopguard does not own.
 */
export function logFailure(
  projectDir: string,
  agent: string,
  event: HookEvent | undefined,
  error: unknown,
  at: number,
): void {
  // No known project (the MCP server was given none): nowhere to log, never the working directory.
  if (!isAbsolute(projectDir)) return;
  // the reason may carry text the model chose (a path, a value): its escape sequences would run in
  // the terminal of the user who reads the log (trust70)
  const reason = printable(
    (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim(),
  );
  const where = event === undefined ? '' : ` ${event.eventName} session=${oneLine(event.sessionId)}`;
  const line = `${new Date(at).toISOString()} ${agent}${where}: failed open: ${reason}\n`;
  try {
    const log = openSync(
      join(ownStateFolder(projectDir, true, checkFoundState) as string, 'hook.log'),
      APPEND_NO_LINK,
      0o600,
    );
    try {
      writeSync(log, line);
    } finally {
      closeSync(log);
    }
  } catch {
    // Nowhere to log: the hook still exits 0 with nothing on stdout.
  }
}

/**
 * An id from the event as it goes on the log's line: control characters (a line feed would start a
 * forged line), quotes, backslashes, line and paragraph separators and lone surrogates escaped as in JSON.
 * @example oneLine('s1\n2026-01-01T00:00:00.000Z claude: forged'); // 's1\\n2026-…'
 */
export function oneLine(id: string): string {
  return JSON.stringify(id)
    .slice(1, -1)
    .replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
