import { isRunLog } from './findTranscripts.js';
import type { ScannedSession } from './scannedSession.js';

/**
 * The sessions read, one record each (qa54): a session whose stream `loopguard run
 * --agent-stream` kept (its output log) and whose CLI kept its own transcript is read from both;
 * the transcript is kept (what ccusage reads, holding the hooks' own marks) and the log's copy
 * dropped. A log whose session has no transcript among the files read is kept, and so are
 * sessions of different agents that share an id.
 */
export function oncePerSession(sessions: readonly ScannedSession[]): ScannedSession[] {
  const key = (session: ScannedSession) => `${session.agent}\u0000${session.sessionId}`;
  const transcripts = new Set(sessions.filter((session) => !isRunLog(session.file)).map(key));
  return sessions.filter((session) => !isRunLog(session.file) || !transcripts.has(key(session)));
}
