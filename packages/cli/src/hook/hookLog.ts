import { appendFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ownStateFolder } from '../stateFolder.js';
import type { HookEvent } from './hookEvent.js';

/**
 * Appends one line to `<projectDir>/.loopguard/hook.log`; a log that cannot be written is given up
 * silently, and so is one whose `.loopguard` is refused (a symbolic link, another user's): nothing
 * is written into a folder loopguard does not own.
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
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const where = event === undefined ? '' : ` ${event.eventName} session=${event.sessionId}`;
  const line = `${new Date(at).toISOString()} ${agent}${where}: failed open: ${reason}\n`;
  try {
    appendFileSync(join(ownStateFolder(projectDir, true) as string, 'hook.log'), line);
  } catch {
    // Nowhere to log: the hook still exits 0 with nothing on stdout.
  }
}
