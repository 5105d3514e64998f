import type { ScannedSession } from './scannedSession.js';

/** The heading the terminal and the HTML page give {@link unguardedSessions}. */
export const UNGUARDED_HEADING = 'Not guarded by loopguard (what status says there)';

/**
 * One line for each switched-off project scanned sessions started in, with how many
 * (`1 session: off in /repo (hook.enabled: false in /repo/loopguard.config.yaml): loopguard guards
 * no session started there.`); none when every session's project has its hooks on (sessions53).
 */
export function unguardedSessions(sessions: readonly ScannedSession[]): string[] {
  const byWords = new Map<string, number>();
  for (const { unguarded } of sessions)
    if (unguarded !== undefined) byWords.set(unguarded, (byWords.get(unguarded) ?? 0) + 1);
  return [...byWords].map(
    ([words, n]) => `${n.toLocaleString('en-US')} session${n === 1 ? '' : 's'}: ${words}.`,
  );
}
