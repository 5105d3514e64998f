import { RECOVERY_VIEW_TOPICS_SQL } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Schema version 7: the spend guard. `spend_ledgers` keeps what each guarded scope has spent
 * between hook calls (one row per scope key: `session:<agent>:<session_id>`,
 * `project_day:<YYYY-MM-DD>`; `ledger` is the `SpendLedger` snapshot as JSON, `offset` how far the
 * session's transcript has been read). The recovery-view index is rebuilt to cover the spend
 * topics (`spend_warning`, `spend_stop`). Documented in `docs/sql.md` ("Spend").
 */
export const SPEND_SCHEMA_SQL = `
CREATE TABLE spend_ledgers (
  scope      TEXT    NOT NULL PRIMARY KEY,
  ledger     TEXT    NOT NULL CHECK (json_valid(ledger)),
  offset     INTEGER NOT NULL DEFAULT 0 CHECK (offset >= 0),
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
DROP INDEX IF EXISTS context_entries_recovery_view_time;
CREATE INDEX context_entries_recovery_view_time ON context_entries (timestamp)
  WHERE topic IN ${RECOVERY_VIEW_TOPICS_SQL};
`;

/** Applies schema version 7. */
export function up007Spend(db: BetterSqlite3.Database): void {
  db.exec(SPEND_SCHEMA_SQL);
}
