/**
 * Schema version 6 on PostgreSQL: a framework adapter's run keeps one row, `adapter_runs`, replaced
 * as the run goes on (`recordRunTally`: at most once every few seconds and at the run's end where
 * the adapter sees it), so that `PgStatusReader` shows a run loopguard did not stop with its tool
 * calls, spend and budget, and reads it `running` only until it ends. The columns are SQLite's
 * (schema version 14; docs/sql.md, "Sessions").
 */
export const ADAPTER_RUNS_SQL = `
CREATE TABLE adapter_runs (
  adapter         text    NOT NULL,
  run_id          text    NOT NULL,
  project_dir     text    NOT NULL,
  started_at      bigint  NOT NULL,
  updated_at      bigint  NOT NULL,
  tool_calls      integer NOT NULL CHECK (tool_calls >= 0),
  tokens          bigint  CHECK (tokens >= 0),
  cost_usd        double precision CHECK (cost_usd >= 0),
  unpriced_tokens bigint  CHECK (unpriced_tokens >= 0),
  budget_usd      double precision CHECK (budget_usd >= 0),
  budget_tokens   bigint  CHECK (budget_tokens >= 0),
  ended_at        bigint,
  PRIMARY KEY (adapter, run_id)
);
`;
