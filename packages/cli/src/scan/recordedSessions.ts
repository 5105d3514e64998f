import { isAbsolute } from 'node:path';
import { type SwitchedOffProject, switchedOffProject, switchedOffWords } from '../hook/switchedOffProject.js';
import { inSessionRecord, joinedChats } from './joinedChats.js';
import { recordDifference } from './recordDifference.js';
import type { ScannedSession } from './scannedSession.js';
import { type SessionRecord, SessionRecords } from './sessionRecord.js';

/**
 * The sessions with loopguard's record of each, where their project's database holds one: the
 * session's `project` becomes the one loopguard keeps it in (`status`'s), the folder its agent
 * started in stays as `startedIn` when it differs (a session started in `repo/src` is `repo`'s),
 * `record` tells what the other doors say of it, and `recordDiffers` where the transcript tells
 * it otherwise ({@link recordDifference}); a session with no record started in a project whose
 * hooks are switched off now is `unguarded`, with `status`'s words, as is one the user switched off
 * and a subagent of such a session with no record of its own. New objects: the scan cache's stay as read.
 */
export function withRecords(sessions: ScannedSession[]): ScannedSession[] {
  const records = new SessionRecords();
  const offBy = new Map<string, SwitchedOffProject | undefined>();
  // a session with no record started where the hooks are off: say so, as `status` there does (sessions53)
  const offHere = (started: string | null) => {
    if (started === null || !isAbsolute(started)) return undefined;
    if (!offBy.has(started)) offBy.set(started, switchedOffProject(started));
    return offBy.get(started);
  };
  const subagents = subagentCosts(sessions);
  const chats = geminiSubagentChats(sessions);
  const recorded = sessions.map((session) => records.recordOf(session));
  const switchedOff = switchedOffSessions(sessions, recorded);
  return sessions.map((session, i) => {
    const record = recorded[i];
    if (record === undefined) {
      // a subagent the hooks left alone because its session was switched off (the switch covers it)
      const parent =
        session.parentSessionId === undefined
          ? undefined
          : switchedOff.get(`${session.agent}:${session.parentSessionId}`);
      if (parent !== undefined)
        return {
          ...session,
          project: parent,
          unguarded: `off for this session (switched off), in ${parent}`,
        };
      const off = offHere(session.project);
      return off === undefined ? session : { ...session, unguarded: switchedOffWords(off) };
    }
    const startedIn =
      session.project !== null && session.project !== record.project ? { startedIn: session.project } : {};
    // a session the user switched off is listed with the sessions loopguard did not guard (codex58)
    const off = record.switchedOff
      ? { unguarded: `off for this session (switched off), in ${record.project}` }
      : {};
    const told: ScannedSession = { ...session, project: record.project, ...startedIn, record, ...off };
    // a Gemini CLI session's record counts its subagents' calls: compared with their chats joined (geminiscan63)
    const compared = joinedChats(told, chats.get(session.sessionId) ?? [], record.stop?.call ?? null);
    const differs = recordDifference(compared, subagents.get(session.sessionId));
    return differs === undefined ? told : { ...told, recordDiffers: differs };
  });
}

/**
 * The project of each session among `sessions` whose record says the user switched it off, by its
 * agent and id (`codex:<id>`): the switch covers the subagents it starts (docs/hooks.md, "Switching it off"), whose
 * calls the hooks then never record.
 */
function switchedOffSessions(
  sessions: readonly ScannedSession[],
  recorded: ReadonlyArray<SessionRecord | undefined>,
): Map<string, string> {
  const off = new Map<string, string>();
  for (const [i, session] of sessions.entries()) {
    const record = recorded[i];
    if (record?.switchedOff === true && session.parentSessionId === undefined)
      off.set(`${session.agent}:${session.sessionId}`, record.project);
  }
  return off;
}

/**
 * What each session's subagents' transcripts cost, by the session's id: the hooks count a
 * subagent's replies against its session's budget (docs/spend.md; a Codex subagent's rollout since
 * codex64, a Gemini CLI subagent's chat since sess64), so the session's record holds them, where
 * `scan` lists each subagent's transcript as a session of its own (sessions50).
 */
function subagentCosts(sessions: readonly ScannedSession[]): Map<string, number> {
  const costs = new Map<string, number>();
  for (const session of sessions) {
    if (session.parentSessionId === undefined) continue;
    if (typeof session.costUsd !== 'number') continue;
    costs.set(session.parentSessionId, (costs.get(session.parentSessionId) ?? 0) + session.costUsd);
  }
  return costs;
}

/**
 * Each Gemini CLI session's subagents' chats, by the session's id: its hooks count a subagent's
 * calls in its session's run (Gemini CLI's hook input names no subagent, polish62).
 */
function geminiSubagentChats(sessions: readonly ScannedSession[]): Map<string, ScannedSession[]> {
  const chats = new Map<string, ScannedSession[]>();
  for (const session of sessions) {
    if (!inSessionRecord(session)) continue;
    chats.set(session.parentSessionId, [...(chats.get(session.parentSessionId) ?? []), session]);
  }
  return chats;
}
