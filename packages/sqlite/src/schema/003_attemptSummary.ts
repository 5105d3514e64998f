import type BetterSqlite3 from 'better-sqlite3';

/**
 * Schema version 3: `task_attempt_summary`, one row per task with stored attempts (how many, the
 * oldest and the newest time), kept by triggers on `attempts` in the same transaction as every
 * write — also a write made by hand in plain SQL. `getStatus()` reads it instead of grouping every
 * attempt in the window. Documented in `docs/sql.md` ("Task attempt summary").
 */
const ATTEMPT_SUMMARY_SQL = `
CREATE TABLE task_attempt_summary (
  task_id       TEXT    NOT NULL PRIMARY KEY,
  attempt_count INTEGER NOT NULL CHECK (attempt_count > 0),
  first_attempt INTEGER NOT NULL,
  last_attempt  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX task_attempt_summary_last ON task_attempt_summary (last_attempt);

INSERT INTO task_attempt_summary (task_id, attempt_count, first_attempt, last_attempt)
  SELECT task_id, count(*), min(timestamp), max(timestamp) FROM attempts GROUP BY task_id;

CREATE TRIGGER attempts_summary_insert AFTER INSERT ON attempts BEGIN
  INSERT INTO task_attempt_summary (task_id, attempt_count, first_attempt, last_attempt)
  VALUES (new.task_id, 1, new.timestamp, new.timestamp)
  ON CONFLICT (task_id) DO UPDATE SET
    attempt_count = attempt_count + 1,
    first_attempt = min(first_attempt, excluded.first_attempt),
    last_attempt = max(last_attempt, excluded.last_attempt);
END;

CREATE TRIGGER attempts_summary_delete AFTER DELETE ON attempts BEGIN
  DELETE FROM task_attempt_summary WHERE task_id = old.task_id AND attempt_count = 1;
  UPDATE task_attempt_summary SET
    attempt_count = attempt_count - 1,
    first_attempt = (SELECT min(timestamp) FROM attempts WHERE task_id = old.task_id),
    last_attempt = (SELECT max(timestamp) FROM attempts WHERE task_id = old.task_id)
  WHERE task_id = old.task_id;
END;

CREATE TRIGGER attempts_summary_update AFTER UPDATE OF task_id, timestamp ON attempts BEGIN
  DELETE FROM task_attempt_summary WHERE task_id IN (old.task_id, new.task_id);
  INSERT INTO task_attempt_summary (task_id, attempt_count, first_attempt, last_attempt)
    SELECT task_id, count(*), min(timestamp), max(timestamp) FROM attempts
    WHERE task_id IN (old.task_id, new.task_id) GROUP BY task_id;
END;
`;

/**
 * Applies schema version 3 (migration 3 in `MIGRATIONS`), summarising the attempts already stored.
 * @example
 * up003AttemptSummary(db);
 */
export function up003AttemptSummary(db: BetterSqlite3.Database): void {
  db.exec(ATTEMPT_SUMMARY_SQL);
}
