import type BetterSqlite3 from 'better-sqlite3';
import { AGENT_SESSIONS_VIEW_V13_SQL } from './008_agentSessions.js';

/**
 * Schema version 11: every framework adapter's run is a session, and says what it spent. The view
 * `agent_sessions` is made again reading an adapter's `run_started` entries (a run loopguard never
 * spoke to) and a run's spend and budget from its `spend_stop` entry (the adapters keep their
 * ledger in memory and write no `spend_ledgers` row). No table changes: `context_entries_topic_time`
 * finds the `run_started` entries. Documented in `docs/sql.md` ("Sessions").
 */
export const ADAPTER_SPEND_SCHEMA_SQL = `
DROP VIEW agent_sessions;
${AGENT_SESSIONS_VIEW_V13_SQL}`;

/** Applies schema version 11. */
export function up011AdapterSpend(db: BetterSqlite3.Database): void {
  db.exec(ADAPTER_SPEND_SCHEMA_SQL);
}
