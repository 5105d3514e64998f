import { RECOVERY_VIEW_TOPICS_SQL } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';
import { AGENT_SESSIONS_VIEW_V13_SQL } from './008_agentSessions.js';

/**
 * Schema version 10: the calls loopguard refused (`call_refused` entries, one a refused call,
 * written by the hooks). The recovery-view index is rebuilt to cover the topic (the queries spell
 * the new topic list, which an index on the old one no longer matches), and the view
 * `agent_sessions` is made again with `refused_calls`. No table changes. Documented in
 * `docs/sql.md` ("Sessions").
 */
export const REFUSED_CALLS_SCHEMA_SQL = `
DROP VIEW agent_sessions;
DROP INDEX IF EXISTS context_entries_recovery_view_time;
CREATE INDEX context_entries_recovery_view_time ON context_entries (timestamp)
  WHERE topic IN ${RECOVERY_VIEW_TOPICS_SQL};
${AGENT_SESSIONS_VIEW_V13_SQL}`;

/** Applies schema version 10. */
export function up010RefusedCalls(db: BetterSqlite3.Database): void {
  db.exec(REFUSED_CALLS_SCHEMA_SQL);
}
