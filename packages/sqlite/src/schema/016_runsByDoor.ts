import type BetterSqlite3 from 'better-sqlite3';
import { AGENT_SESSIONS_VIEW_SQL } from './008_agentSessions.js';

/**
 * Schema version 16: the view `agent_sessions` made again, so that a run's stop, nudges and stops
 * are its own door's entries (an adapter's, its `metadata.adapter`; a `loopguard run`'s, none), as
 * PostgreSQL's reader and `sessionEntries` find them: two frameworks' runs given the same `runId`
 * are two sessions, each with its own stop (pg68). Documented in `docs/sql.md` ("Sessions").
 */
export const RUNS_BY_DOOR_SCHEMA_SQL = `
DROP VIEW agent_sessions;
${AGENT_SESSIONS_VIEW_SQL}`;

/** Applies schema version 16. */
export function up016RunsByDoor(db: BetterSqlite3.Database): void {
  db.exec(RUNS_BY_DOOR_SCHEMA_SQL);
}
