import type BetterSqlite3 from 'better-sqlite3';

/**
 * Schema version 5: sessions guarded by `loopguard hook claude|gemini`. One row per agent session
 * (the CLI's `session_id`, scoped by the project directory): the step detector's snapshot between
 * hook processes, the last result of the session's recent actions (to recognise a repeat before it
 * runs), and counters. Documented in `docs/sql.md` ("Hook sessions").
 */
export const HOOK_SESSIONS_SCHEMA_SQL = `
CREATE TABLE hook_sessions (
  agent        TEXT    NOT NULL CHECK (agent IN ('claude', 'gemini')),
  session_id   TEXT    NOT NULL,
  project_dir  TEXT    NOT NULL,
  snapshot     TEXT    NOT NULL CHECK (json_valid(snapshot)),
  last_results TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(last_results)),
  steps        INTEGER NOT NULL DEFAULT 0 CHECK (steps >= 0),
  nudges       INTEGER NOT NULL DEFAULT 0 CHECK (nudges >= 0),
  stops        INTEGER NOT NULL DEFAULT 0 CHECK (stops >= 0),
  enabled      INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (agent, session_id, project_dir)
) WITHOUT ROWID;
CREATE INDEX hook_sessions_updated ON hook_sessions (updated_at);
`;

/** Applies schema version 5. */
export function up005HookSessions(db: BetterSqlite3.Database): void {
  db.exec(HOOK_SESSIONS_SCHEMA_SQL);
}
