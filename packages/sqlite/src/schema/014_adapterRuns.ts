import type BetterSqlite3 from 'better-sqlite3';
import { AGENT_SESSIONS_VIEW_V14_SQL } from './008_agentSessions.js';

/**
 * Schema version 14: a framework adapter's run keeps one row, `adapter_runs`, replaced as the run
 * goes on (`StateMachine.recordRunTally`: at most once every few seconds and at the run's end where
 * the adapter sees it), so that a run loopguard did not stop shows its tool calls, spend and budget
 * like a hook session, and reads `running` only until it ends. The view `agent_sessions` is made
 * again reading it (a stop entry's figures come first: the stop ends the run). Documented in
 * `docs/sql.md` ("Sessions").
 */
export const ADAPTER_RUNS_SCHEMA_SQL = `
CREATE TABLE adapter_runs (
  adapter         TEXT    NOT NULL,
  run_id          TEXT    NOT NULL,
  project_dir     TEXT    NOT NULL,
  started_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  tool_calls      INTEGER NOT NULL CHECK (tool_calls >= 0),
  tokens          INTEGER CHECK (tokens IS NULL OR tokens >= 0),
  cost_usd        REAL    CHECK (cost_usd IS NULL OR cost_usd >= 0),
  unpriced_tokens INTEGER CHECK (unpriced_tokens IS NULL OR unpriced_tokens >= 0),
  budget_usd      REAL    CHECK (budget_usd IS NULL OR budget_usd >= 0),
  budget_tokens   INTEGER CHECK (budget_tokens IS NULL OR budget_tokens >= 0),
  ended_at        INTEGER,
  PRIMARY KEY (adapter, run_id)
) WITHOUT ROWID;
DROP VIEW agent_sessions;
${AGENT_SESSIONS_VIEW_V14_SQL}`;

/** Applies schema version 14. */
export function up014AdapterRuns(db: BetterSqlite3.Database): void {
  db.exec(ADAPTER_RUNS_SCHEMA_SQL);
}
