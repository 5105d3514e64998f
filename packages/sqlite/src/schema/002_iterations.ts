import type BetterSqlite3 from 'better-sqlite3';

/**
 * Schema version 2: guarded iteration sessions (seed 000's iteration tools) — sessions, their
 * checkpoints and their iteration history, written by `SqliteIterationStore`. Documented in
 * `docs/sql.md` ("Iteration sessions").
 */
export const ITERATIONS_SCHEMA_SQL = `
CREATE TABLE iteration_sessions (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id    TEXT    NOT NULL,
  config     TEXT    NOT NULL CHECK (json_valid(config) AND json_type(config) = 'object'),
  status     TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'blocked')),
  end_reason TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX iteration_sessions_task ON iteration_sessions (task_id, status);

CREATE TABLE iteration_checkpoints (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id       INTEGER NOT NULL REFERENCES iteration_sessions (id),
  task_id          TEXT    NOT NULL,
  iteration_number INTEGER NOT NULL CHECK (iteration_number >= 0),
  trigger          TEXT    NOT NULL CHECK (trigger IN ('start', 'iteration', 'complete', 'blocked', 'error', 'manual')),
  agent_context    TEXT    CHECK (agent_context IS NULL OR (json_valid(agent_context) AND json_type(agent_context) = 'object')),
  created_at       INTEGER NOT NULL
);
CREATE INDEX iteration_checkpoints_session ON iteration_checkpoints (session_id, id);
CREATE INDEX iteration_checkpoints_task ON iteration_checkpoints (task_id, created_at);
CREATE TRIGGER iteration_checkpoints_no_update BEFORE UPDATE ON iteration_checkpoints
BEGIN SELECT RAISE(ABORT, 'iteration_checkpoints is append-only: rows cannot be updated'); END;

CREATE TABLE iteration_history (
  session_id         INTEGER NOT NULL REFERENCES iteration_sessions (id),
  iteration          INTEGER NOT NULL CHECK (iteration >= 1),
  task_id            TEXT    NOT NULL,
  passed             INTEGER CHECK (passed IS NULL OR passed IN (0, 1)),
  score              REAL    CHECK (score IS NULL OR score BETWEEN 0 AND 1),
  flags              TEXT    CHECK (flags IS NULL OR (json_valid(flags) AND json_type(flags) = 'array')),
  output             TEXT,
  completion_promise TEXT,
  recorded_at        INTEGER NOT NULL,
  PRIMARY KEY (session_id, iteration)
) WITHOUT ROWID;
CREATE INDEX iteration_history_task ON iteration_history (task_id, recorded_at);
`;

/** Applies schema version 2. */
export function up002Iterations(db: BetterSqlite3.Database): void {
  db.exec(ITERATIONS_SCHEMA_SQL);
}
