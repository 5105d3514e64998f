import type BetterSqlite3 from 'better-sqlite3';

/**
 * Schema version 13: a hook session remembers its agent CLI's process (`hook_sessions.agent_process`,
 * `AgentProcess.id`, written at every event; `NULL` where it is not known), so that a door can say
 * a session whose agent was killed without its end event has ended (`liveSessions.ts`). The view
 * `agent_sessions` is unchanged: whether a process is gone is known only on the machine that ran it,
 * at the time it is read. Documented in `docs/sql.md` ("Sessions").
 */
export const AGENT_PROCESS_SCHEMA_SQL = 'ALTER TABLE hook_sessions ADD COLUMN agent_process TEXT;';

/** Applies schema version 13. */
export function up013AgentProcess(db: BetterSqlite3.Database): void {
  db.exec(AGENT_PROCESS_SCHEMA_SQL);
}
