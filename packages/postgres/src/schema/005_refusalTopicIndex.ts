import { RECOVERY_VIEW_TOPICS_SQL } from '@loopguard/core/internal';

/**
 * Schema version 5 on PostgreSQL: the recovery-view index rebuilt to cover `call_refused` (the calls
 * loopguard refused, which the hooks write to SQLite), so that the queries, which spell the new
 * topic list, still match it.
 */
export const REFUSAL_TOPIC_INDEX_SQL = `
DROP INDEX IF EXISTS context_entries_recovery_view_time;
CREATE INDEX context_entries_recovery_view_time ON context_entries (timestamp DESC, id DESC)
  WHERE topic IN ${RECOVERY_VIEW_TOPICS_SQL};
`;
