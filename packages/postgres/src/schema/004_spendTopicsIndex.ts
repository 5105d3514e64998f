import { RECOVERY_VIEW_TOPICS_SQL } from '@loopguard/core/internal';

/**
 * Schema version 4 on PostgreSQL: the recovery-view index rebuilt to cover the spend guard's topics
 * (`spend_warning`, `spend_stop`), so that the queries, which spell the new topic list, still match it.
 */
export const SPEND_TOPICS_INDEX_SQL = `
DROP INDEX IF EXISTS context_entries_recovery_view_time;
CREATE INDEX context_entries_recovery_view_time ON context_entries (timestamp DESC, id DESC)
  WHERE topic IN ${RECOVERY_VIEW_TOPICS_SQL};
`;
