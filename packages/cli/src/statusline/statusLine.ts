import { type SessionRow, sessionViewOf } from '@loopguard/core/internal';
import { readLiveSessions, sessionRowColumns } from '@loopguard/sqlite/liveSessions';
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
  return `loopguard: ${sessionViewOf(row).summary}${subagentsText(db, input)}`;
}

/** What loopguard did to a subagent, by its run's verdict (those it did nothing to are not named). */
const SUBAGENT_VERDICTS: Readonly<Record<string, string>> = {
  stopped: 'stopped by loopguard',
  stopped_on_spend: 'stopped on spend',
  nudged: 'nudged',
};

/**
 * `; 1 subagent stopped by loopguard, 2 subagents nudged`, or `''`: the session's subagents
 * loopguard stepped in on, each a run of its own with its own verdict (`agent_sessions`). They are
 * found from their transcripts beside the session's (a folder listing and a look-up by id: no scan
 * of every session).
 */
function subagentsText(db: Database.Database, input: StatusLineInput): string {
  if (input.transcriptPath === undefined) return '';
  const ids = claudeSubagentTranscripts(input.transcriptPath).map((t) => t.agentId);
  if (ids.length === 0) return '';
  const rows = db
    .prepare(
      `SELECT verdict, count(*) AS n FROM agent_sessions
       WHERE agent = 'claude' AND parent_session_id = ? AND session_id IN (${ids.map(() => '?').join(', ')})
       GROUP BY verdict`,
    )
    .all(input.sessionId, ...ids) as Array<{ verdict: string; n: number }>;
  const parts = Object.entries(SUBAGENT_VERDICTS).flatMap(([verdict, words]) => {
    const n = rows.find((r) => r.verdict === verdict)?.n ?? 0;
    return n === 0 ? [] : [`${n} subagent${n === 1 ? '' : 's'} ${words}`];
  });
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}
