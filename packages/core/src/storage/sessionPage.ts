import type { SessionRow, SessionVerdict, SessionView } from './sessionView.js';
import { sessionViewOf } from './sessionViewOf.js';
import { decodeStatusCursor, encodeStatusCursor } from './statusCursor.js';
import { type SubagentVerdictRow, subagentVerdictsOf } from './subagentVerdicts.js';

/**
 * What {@link StatusReader.sessionPage} reads: sessions, most recently active first.
 * @example { limit: 20, verdict: 'stopped' }
 */
export interface SessionPageQuery {
  /** Sessions per page (1..1000). */
  limit: number;
  /** The `nextCursor` of the previous page. @default undefined (the first page) */
  cursor?: string | undefined;
  /** Only sessions with this id (a session id may repeat across agents and projects). @default every session */
  sessionId?: string | undefined;
  /** Only this verdict. @default every verdict */
  verdict?: SessionVerdict | undefined;
}

/**
 * A page of sessions, most recently active first.
 * @example { sessions: [...], nextCursor: null }
 */
export interface SessionPage {
  /** The sessions of this page. */
  sessions: SessionView[];
  /** Pass as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}

/**
 * Which session: its door and its id (a session id may repeat across doors).
 * @example { agent: 'claude', sessionId: '3f1c…' }
 */
export interface SessionKey {
  /** The door: `claude`, `codex`, `gemini`, `run` or an adapter. */
  agent: string;
  /** The session's id within that door. */
  sessionId: string;
}

/** The keyset position after a page's last session: its last activity and key. */
export type SessionCursorKey = [lastActive: number, agent: string, sessionId: string, projectDir: string];

/**
 * The position a `cursor` of {@link SessionPageQuery} names; `null` for the first page.
 * @throws InvalidInputError naming `cursor` when it is not one a reader made.
 */
export function sessionPageAfter(query: Pick<SessionPageQuery, 'cursor'>): SessionCursorKey | null {
  if (query.cursor === undefined) return null;
  return decodeStatusCursor(query.cursor, ['number', 'string', 'string', 'string']) as SessionCursorKey;
}

/**
 * A page from the rows read with `limit + 1` (the extra row says a next page exists), each main
 * session with its subagents' counts among `subagents` (the reader's {@link SubagentVerdictRow}s).
 * @example sessionPageOf(rows, 20).nextCursor; // null on the last page
 */
export function sessionPageOf(
  rows: readonly SessionRow[],
  limit: number,
  subagents: readonly SubagentVerdictRow[] = [],
): SessionPage {
  const sessions = rows
    .slice(0, limit)
    .map((row) => sessionViewOf(row, subagentVerdictsOf(subagents, row.agent, row.session_id)));
  const last = sessions.at(-1);
  return {
    sessions,
    nextCursor:
      rows.length > limit && last !== undefined
        ? encodeStatusCursor([last.lastActive, last.agent, last.sessionId, last.projectDir])
        : null,
  };
}
