import type BetterSqlite3 from 'better-sqlite3';
import { AGENT_SESSIONS_VIEW_V13_SQL } from './008_agentSessions.js';

/**
 * Schema version 9: `hook_sessions.snapshot` and `last_results` without their `json_valid` checks.
 * SQLite parsed both texts (hundreds of kilobytes on a long session) on every hook call's write,
 * and their readers validate them anyway, whatever the file holds: the detector trusts only a
 * snapshot it sealed itself and validates any other text (`restoreSealed`), and the hook reads
 * anything but its own memory's shape as nothing remembered (`parseMemory`). The table is rebuilt
 * (SQLite cannot drop a check), its rows kept, and the view `agent_sessions`, which reads it, made
 * again as version 8 made it. Documented in `docs/sql.md` ("Hook sessions").
 */
export const HOOK_SESSION_TEXT_SCHEMA_SQL = `
DROP VIEW agent_sessions;
CREATE TABLE hook_sessions_v9 (
  agent             TEXT    NOT NULL CHECK (agent IN ('claude', 'gemini', 'codex')),
  session_id        TEXT    NOT NULL,
  project_dir       TEXT    NOT NULL,
  snapshot          TEXT    NOT NULL,
  last_results      TEXT    NOT NULL DEFAULT '[]',
  steps             INTEGER NOT NULL DEFAULT 0 CHECK (steps >= 0),
  nudges            INTEGER NOT NULL DEFAULT 0 CHECK (nudges >= 0),
  stops             INTEGER NOT NULL DEFAULT 0 CHECK (stops >= 0),
  enabled           INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  tool_calls        INTEGER NOT NULL DEFAULT 0 CHECK (tool_calls >= 0),
  parent_session_id TEXT,
  agent_type        TEXT,
  PRIMARY KEY (agent, session_id, project_dir)
) WITHOUT ROWID;
INSERT INTO hook_sessions_v9 (agent, session_id, project_dir, snapshot, last_results, steps, nudges, stops,
  enabled, created_at, updated_at, tool_calls, parent_session_id, agent_type)
SELECT agent, session_id, project_dir, snapshot, last_results, steps, nudges, stops,
  enabled, created_at, updated_at, tool_calls, parent_session_id, agent_type
FROM hook_sessions;
DROP TABLE hook_sessions;
ALTER TABLE hook_sessions_v9 RENAME TO hook_sessions;
CREATE INDEX hook_sessions_updated ON hook_sessions (updated_at);
${AGENT_SESSIONS_VIEW_V13_SQL}`;

/** Applies schema version 9. */
export function up009HookSessionText(db: BetterSqlite3.Database): void {
  db.exec(HOOK_SESSION_TEXT_SCHEMA_SQL);
}
