import { recordDifference } from './recordDifference.js';
import type { ScannedSession } from './scannedSession.js';
import { SessionRecords } from './sessionRecord.js';

/**
 * The sessions with loopguard's record of each, where their project's database holds one: the
 * session's `project` becomes the one loopguard keeps it in (`status`'s), the folder its agent
 * started in stays as `startedIn` when it differs (a session started in `repo/src` is `repo`'s),
 * `record` tells what the other doors say of it, and `recordDiffers` where the transcript tells
 * it otherwise ({@link recordDifference}). New objects: the scan cache's stay as read.
 */
export function withRecords(sessions: ScannedSession[]): ScannedSession[] {
  const records = new SessionRecords();
  return sessions.map((session) => {
    const record = records.recordOf(session);
    if (record === undefined) return session;
    const startedIn =
      session.project !== null && session.project !== record.project ? { startedIn: session.project } : {};
    const told: ScannedSession = { ...session, project: record.project, ...startedIn, record };
    const differs = recordDifference(told);
    return differs === undefined ? told : { ...told, recordDiffers: differs };
  });
}
