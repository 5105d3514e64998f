import { type SessionRow, sessionViewOf } from '@loopguard/core/internal';
import type Database from 'better-sqlite3';

/**
 * What Claude Code hands a `statusLine` command on stdin, as far as loopguard reads it.
 * @example { session_id: '3f1c…', cwd: '/repo/src', workspace: { project_dir: '/repo' } }
 */
export interface StatusLineInput {
  /** The session the line is about. */
  sessionId: string;
  /** The project folder whose database the hooks write: `CLAUDE_PROJECT_DIR`, `workspace.project_dir`, else `cwd`. */
  projectDir: string;
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
  const { session_id: sessionId, cwd, workspace } = parsed as Record<string, unknown>;
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
  return { sessionId, projectDir };
}

/**
 * The one line about a Claude Code session: `loopguard: <the session's summary>`, the sentence
 * `status` and the dashboard print for it; `loopguard: watching` before its first tool call; led by
 * `off for this session (switched off)` once its row is switched off (`enabled = 0`).
 * @param db - the project's database, open read-only (schema 8 or later).
 * @example statusLine(db, { sessionId: 's1', projectDir: '/repo' }); // 'loopguard: stopped by loopguard at call 4 (repeated_action), 4 tool calls ran'
 */
export function statusLine(db: Database.Database, input: StatusLineInput): string {
  const row = db
    .prepare(
      `SELECT s.*, h.enabled FROM agent_sessions s
       LEFT JOIN hook_sessions h ON h.agent = s.agent AND h.session_id = s.session_id AND h.project_dir = s.project_dir
       WHERE s.agent = 'claude' AND s.session_id = ? ORDER BY s.last_active DESC LIMIT 1`,
    )
    .get(input.sessionId) as (SessionRow & { enabled: number | null }) | undefined;
  if (row === undefined) return 'loopguard: watching';
  const off = row.enabled === 0 ? 'off for this session (switched off), ' : '';
  return `loopguard: ${off}${sessionViewOf(row).summary}`;
}
