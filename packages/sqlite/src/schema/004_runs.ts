import type BetterSqlite3 from 'better-sqlite3';

/**
 * Schema version 4: runs of `loopguard run` — each run, its stagnation breaker's state and every
 * transition of it, and one row per finished iteration. Every row carries its run id, so a crashed
 * run never ends the next one. Documented in `docs/sql.md` ("Guarded runs").
 */
export const RUNS_SCHEMA_SQL = `
CREATE TABLE runs (
  id            TEXT    PRIMARY KEY,
  command       TEXT    NOT NULL CHECK (json_valid(command) AND json_type(command) = 'array'),
  options       TEXT    NOT NULL CHECK (json_valid(options) AND json_type(options) = 'object'),
  cwd           TEXT    NOT NULL,
  status        TEXT    NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'paused', 'aborted', 'completed', 'budget_spent', 'interrupted', 'failed')),
  iteration     INTEGER NOT NULL DEFAULT 0 CHECK (iteration >= 0),
  breaker_state TEXT    NOT NULL DEFAULT 'CLOSED' CHECK (breaker_state IN ('CLOSED', 'HALF_OPEN', 'OPEN')),
  breaker       TEXT,
  model_index   INTEGER NOT NULL DEFAULT 0,
  reason        TEXT,
  exit_code     INTEGER,
  started_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE INDEX runs_started ON runs (started_at);

CREATE TABLE breaker_transitions (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id     TEXT    NOT NULL REFERENCES runs (id),
  at         INTEGER NOT NULL,
  from_state TEXT    NOT NULL CHECK (from_state IN ('CLOSED', 'HALF_OPEN', 'OPEN')),
  to_state   TEXT    NOT NULL CHECK (to_state IN ('CLOSED', 'HALF_OPEN', 'OPEN')),
  reason     TEXT    NOT NULL
);
CREATE INDEX breaker_transitions_run ON breaker_transitions (run_id, id);
CREATE TRIGGER breaker_transitions_no_update BEFORE UPDATE ON breaker_transitions
BEGIN SELECT RAISE(ABORT, 'breaker_transitions is append-only: rows cannot be updated'); END;

CREATE TABLE run_iterations (
  run_id      TEXT    NOT NULL REFERENCES runs (id),
  iteration   INTEGER NOT NULL CHECK (iteration >= 1),
  started_at  INTEGER NOT NULL,
  ended_at    INTEGER NOT NULL,
  exit_code   INTEGER,
  progress    TEXT    NOT NULL CHECK (progress IN ('progress', 'stalled', 'unknown', 'infrastructure', 'stopped')),
  signals     TEXT    NOT NULL CHECK (json_valid(signals) AND json_type(signals) = 'array'),
  PRIMARY KEY (run_id, iteration)
) WITHOUT ROWID;
`;

/** Applies schema version 4. */
export function up004Runs(db: BetterSqlite3.Database): void {
  db.exec(RUNS_SCHEMA_SQL);
}
