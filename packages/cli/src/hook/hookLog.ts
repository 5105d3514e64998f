import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HookEvent } from './hookEvent.js';

/** Appends one line to `<projectDir>/.loopguard/hook.log`; a log that cannot be written is given up silently. */
export function logFailure(
  projectDir: string,
  agent: string,
  event: HookEvent | undefined,
  error: unknown,
  at: number,
): void {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const where = event === undefined ? '' : ` ${event.eventName} session=${event.sessionId}`;
  const line = `${new Date(at).toISOString()} ${agent}${where}: failed open: ${reason}\n`;
  try {
    // Not recursive: the project directory exists, and a recursive mkdir under /proc never returns.
    if (!existsSync(join(projectDir, '.loopguard'))) mkdirSync(join(projectDir, '.loopguard'));
    appendFileSync(join(projectDir, '.loopguard', 'hook.log'), line);
  } catch {
    // Nowhere to log: the hook still exits 0 with nothing on stdout.
  }
}
