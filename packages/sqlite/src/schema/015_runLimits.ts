import type BetterSqlite3 from 'better-sqlite3';
import { AGENT_SESSIONS_VIEW_V15_SQL } from './008_agentSessions.js';

/**
 * Schema version 15: the view `agent_sessions` made again, so that a `loopguard run` that reached
 * its iterations or its time (stored `budget_spent`, exit 5) reads `stopped`, and only a stop of
 * the spend guard (its `spend_stop` entry) reads `stopped_on_spend` (qa54). Documented in
 * `docs/sql.md` ("Sessions").
 */
export const RUN_LIMITS_SCHEMA_SQL = `
DROP VIEW agent_sessions;
${AGENT_SESSIONS_VIEW_V15_SQL}`;

/** Applies schema version 15. */
export function up015RunLimits(db: BetterSqlite3.Database): void {
  db.exec(RUN_LIMITS_SCHEMA_SQL);
}
