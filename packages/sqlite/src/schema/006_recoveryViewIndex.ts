import { RECOVERY_VIEW_TOPICS_SQL } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Schema version 6: a partial index on the topics the recoveries page and the live feed list (the
 * three recovery topics plus the step-level `loop_nudge` and `loop_stop`). The queries spell the
 * same condition, so SQLite uses it; the version-1 index on the three recovery topics stays for the
 * seed's query and the per-task status reads.
 */
export const RECOVERY_VIEW_INDEX_SQL = `
CREATE INDEX context_entries_recovery_view_time ON context_entries (timestamp)
  WHERE topic IN ${RECOVERY_VIEW_TOPICS_SQL};
`;

/** Applies schema version 6. */
export function up006RecoveryViewIndex(db: BetterSqlite3.Database): void {
  db.exec(RECOVERY_VIEW_INDEX_SQL);
}
