import {
  type SessionRow,
  type SubagentVerdictRow,
  sessionViewOf,
  subagentVerdictsOf,
} from '@loopguard/core/internal';
import { readLiveSessions, sessionRowColumns, subagentVerdictRows } from '@loopguard/sqlite/liveSessions';
import type Database from 'better-sqlite3';
import { claudeSubagentTranscripts } from '../hook/claudeSubagent.js';

/**
 * What Claude Code hands a `statusLine` command on stdin, as far as loopguard reads it.
 * @example { session_id: '3f1c…', cwd: '/repo/src', workspace: { project_dir: '/repo' } }
 */
export interface StatusLineInput {
  /** The session the line is about. */
  sessionId: string;
  /** The project folder whose database the hooks write: `CLAUDE_PROJECT_DIR`, `workspace.project_dir`, else `cwd`. */
  projectDir: string;
  /** The session's transcript (`transcript_path`): its subagents' transcripts are beside it. */
  transcriptPath?: string;
}

/**
 * Reads the fields of Claude Code's status-line JSON (and `CLAUDE_PROJECT_DIR`, as the hooks do); `undefined` when it is not an object with a
 * non-empty `session_id` and a folder.
 * @example statusLineInput('{"session_id":"s1","cwd":"/repo"}'); // { sessionId: 's1', projectDir: '/repo' }
 */
export function statusLineInput(text: string, env: NodeJS.ProcessEnv = {}): StatusLineInput | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const {
    session_id: sessionId,
    cwd,
    workspace,
    transcript_path: transcriptPath,
  } = parsed as Record<string, unknown>;
  const projectDir =
    env.CLAUDE_PROJECT_DIR ||
    ((workspace as { project_dir?: unknown } | null | undefined)?.project_dir ?? cwd);
  if (
    typeof sessionId !== 'string' ||
    sessionId === '' ||
    typeof projectDir !== 'string' ||
    projectDir === ''
  )
    return undefined;
  return {
    sessionId,
    projectDir,
    ...(typeof transcriptPath === 'string' && transcriptPath !== '' ? { transcriptPath } : {}),
  };
}

/**
 * The one line about a Claude Code session: `loopguard: <the session's summary>`, the sentence
 * `status` and the dashboard print for it (led by `off for this session (switched off)` once its
 * row is switched off, `enabled = 0`); `loopguard: watching` before its first tool call.
 * @param db - the project's database, open read-only (schema 8 or later).
 * @example statusLine(db, { sessionId: 's1', projectDir: '/repo' }); // 'loopguard: stopped by loopguard at call 4 (repeated call), 4 tool calls ran'
 */
export function statusLine(db: Database.Database, input: StatusLineInput): string {
  readLiveSessions(db);
  const row = db
    .prepare(
      `SELECT ${sessionRowColumns(db)} FROM agent_sessions WHERE agent = 'claude' AND session_id = ?
       ORDER BY last_active DESC LIMIT 1`,
    )
    .get(input.sessionId) as SessionRow | undefined;
  if (row === undefined) return 'loopguard: watching';
  const subagents = subagentVerdictsOf(subagentsOf(db, input), 'claude', input.sessionId);
  return `loopguard: ${sessionViewOf(row, subagents).summary}`;
}

/**
 * The session's subagents loopguard stepped in on, found from their transcripts beside the session's
 * (a folder listing and a look-up by id: no read of every session after each reply).
 */
function subagentsOf(db: Database.Database, input: StatusLineInput): SubagentVerdictRow[] {
  if (input.transcriptPath === undefined) return [];
  const ids = claudeSubagentTranscripts(input.transcriptPath).map((t) => t.agentId);
  return subagentVerdictRows(db, [{ agent: 'claude', session_id: input.sessionId }], ids);
}
