import type BetterSqlite3 from 'better-sqlite3';
import { AGENT_SESSIONS_VIEW_V13_SQL } from './008_agentSessions.js';

/**
 * Schema version 12: a hook session its agent said it ended is no longer `running`. The view
 * `agent_sessions` is made again reading a hook session's `session_ended` entries (written at the
 * agent's `SessionEnd`; its parent session's end ends a subagent's run too): a session is running only
 * when none follows its last event. A framework adapter's run gets its project (its `run_started`
 * entry's `projectDir`) and, once stopped, its tool calls (its stop entry's `toolCall`). No table changes: `context_entry_tasks` finds the entries by
 * task. Documented in `docs/sql.md` ("Sessions").
 */
export const SESSION_END_SCHEMA_SQL = `
DROP VIEW agent_sessions;
${AGENT_SESSIONS_VIEW_V13_SQL}`;

/** Applies schema version 12. */
export function up012SessionEnd(db: BetterSqlite3.Database): void {
  db.exec(SESSION_END_SCHEMA_SQL);
}
