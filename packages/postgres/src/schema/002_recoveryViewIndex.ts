import { RECOVERY_VIEW_TOPICS_SQL } from '@loopguard/core/internal';

/**
 * Schema version 2 on PostgreSQL: a partial index on the topics the recoveries page and the live
 * feed list (the three recovery topics plus the step-level `loop_nudge` and `loop_stop`); the
 * queries spell the same condition, so the planner can match it. The version-1 index on the three
 * recovery topics stays for the seed's query and the per-task status reads.
 */
export const RECOVERY_VIEW_INDEX_SQL = `
CREATE INDEX context_entries_recovery_view_time ON context_entries (timestamp DESC, id DESC)
  WHERE topic IN ${RECOVERY_VIEW_TOPICS_SQL};
`;
