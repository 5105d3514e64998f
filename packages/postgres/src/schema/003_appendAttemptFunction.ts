/**
 * Schema version 3 on PostgreSQL: `loopguard_append_attempt`, the record of one attempt as one
 * statement (one round trip, no `BEGIN`/`COMMIT` of the client's). It takes the advisory lock of
 * `lock_text` (the lock id `PostgresStorage.transaction({ lockKey })` takes for the same key),
 * stamps the attempt `greatest(stamp, the task's newest timestamp at or after since)` (core's
 * `nextAttemptTimestamp`), inserts it and returns the timestamp stored. PL/pgSQL takes a new snapshot
 * for each statement, so the newest timestamp is read after the lock is held and sees every attempt
 * its previous holder committed.
 * @example
 * await client.query(APPEND_ATTEMPT_FUNCTION_SQL); // what migration 3 runs
 */
export const APPEND_ATTEMPT_FUNCTION_SQL = `
CREATE FUNCTION loopguard_append_attempt(
  lock_text text, p_task_id text, stamp bigint, p_status text, p_blockers jsonb,
  p_completed_work jsonb, p_session_id text, since bigint
) RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  stored bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(lock_text, 0));
  SELECT greatest(stamp, max(a.timestamp)) INTO stored FROM attempts AS a
    WHERE a.task_id = p_task_id AND a.timestamp >= since;
  INSERT INTO attempts (task_id, timestamp, status, blockers, completed_work, session_id)
    VALUES (p_task_id, stored, p_status, p_blockers, p_completed_work, p_session_id);
  RETURN stored;
END
$fn$;
`;
