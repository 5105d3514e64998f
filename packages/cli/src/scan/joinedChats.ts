import type { ScannedLoop, SpendStop } from './SessionScan.js';
import type { ScannedSession } from './scannedSession.js';

/**
 * Whether `session` is a chat whose calls its session's record counts (`parentSessionId`): a Gemini
 * CLI subagent's, whose hook input gives its events the session's id (polish62). A Claude Code or
 * Codex subagent is a run of its own, with its own record.
 */
export function inSessionRecord(
  session: ScannedSession,
): session is ScannedSession & { parentSessionId: string } {
  return session.agent === 'gemini' && session.parentSessionId !== undefined;
}

/**
 * How many sessions `stopped` (chats of `all`) are: a Gemini CLI subagent's chat is its session's,
 * one session with its main chat and its other subagents' (geminiscan63; without a record too,
 * sess66), and where that session's record is among `all` the record holds its stop, not the chat.
 */
export function sessionsCounted(
  all: readonly ScannedSession[],
): (stopped: readonly ScannedSession[]) => number {
  const recorded = new Set(all.filter((s) => s.record !== undefined).map((s) => s.sessionId));
  return (stopped) =>
    new Set(
      stopped.flatMap((session) => {
        if (!inSessionRecord(session))
          return [session.agent === 'gemini' ? `gemini:${session.sessionId}` : session];
        return recorded.has(session.parentSessionId) ? [] : [`gemini:${session.parentSessionId}`];
      }),
    ).size;
}

/** A call's number among the session's calls: the ones that ran and the ones refused. */
const callsOf = (session: ScannedSession) => session.toolCalls + session.deniedCalls;

/** `loop` with its tool calls numbered `shift` further on. */
function shifted(loop: ScannedLoop, shift: number): ScannedLoop {
  if (shift === 0) return loop;
  return {
    ...loop,
    nudgeCall: loop.nudgeCall + shift,
    stopCall: loop.stopCall === null ? null : loop.stopCall + shift,
    endCall: loop.endCall + shift,
  };
}

/**
 * A Gemini CLI session as its hooks saw it: its main chat with its subagents' chats joined (their
 * tool calls, refused calls, loops and spend stop). Gemini CLI's hook input gives a subagent's
 * events the session's id (polish62), so loopguard's record of the session counts them, where each
 * chat is a file, and a session, of its own in `scan`. A chat's calls are numbered in it from 1, in
 * the session after the calls of the other chats that ran before them; the chats name no order
 * across files (the main thread's `invoke_agent` is written when the subagent ends, its result
 * holding what was answered after it), so a chat's stop is taken at `recordedStop` where that lies
 * between its own number and its number after all the session's other calls, else at its own: a
 * subagent's loop stop, and each chat's spend stop, the session's being the first (gemscan65).
 * Only for the comparison with the record: the chats are listed as they read.
 * @param recordedStop - the tool call of the stop loopguard's record holds; `null`: none.
 * @example joinedChats(main, [subagent], 4).toolCalls // 5: the main thread's 1 and the subagent's 4
 */
export function joinedChats(
  main: ScannedSession,
  subagents: readonly ScannedSession[],
  recordedStop: number | null,
): ScannedSession {
  if (subagents.length === 0) return main;
  const all = subagents.reduce((sum, chat) => sum + callsOf(chat), callsOf(main));
  /** How far `chat`'s stop at call `stop` moves in the session: to `recordedStop` where it can lie. */
  const shiftOf = (chat: ScannedSession, stop: number | null) =>
    stop === null || recordedStop === null
      ? 0
      : Math.min(Math.max(recordedStop - stop, 0), all - callsOf(chat));
  const loops = [...main.loops];
  for (const chat of subagents) {
    const stop = chat.loops.find((loop) => loop.loopguard === 'stopped')?.stopCall ?? null;
    loops.push(...chat.loops.map((loop) => shifted(loop, shiftOf(chat, stop))));
  }
  const spendStop = [main, ...subagents]
    .flatMap((chat) =>
      chat.spendStop === undefined
        ? []
        : [{ ...chat.spendStop, call: chat.spendStop.call + shiftOf(chat, chat.spendStop.call) }],
    )
    .reduce<SpendStop | undefined>(
      (first, stop) => (first === undefined || stop.call < first.call ? stop : first),
      undefined,
    );
  return {
    ...main,
    toolCalls: subagents.reduce((sum, chat) => sum + chat.toolCalls, main.toolCalls),
    deniedCalls: subagents.reduce((sum, chat) => sum + chat.deniedCalls, main.deniedCalls),
    loops,
    ...(spendStop === undefined ? {} : { spendStop }),
  };
}
