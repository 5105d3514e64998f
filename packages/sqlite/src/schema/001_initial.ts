import { RECOVERY_TOPICS_SQL, SCHEMA_V1_TASK_STATUSES_SQL } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';

const STATUSES = SCHEMA_V1_TASK_STATUSES_SQL;
/** The recovery topics, spelled exactly as the seed's query spells them (partial indexes match on text). */
const RECOVERY = RECOVERY_TOPICS_SQL;

/**
 * Schema version 1: tasks and their history, context entries (with a task link table), attempts.
 * Documented column by column in `docs/sql.md`.
 * @example
 * new Database(':memory:').exec(INITIAL_SCHEMA_SQL); // what migration 1 runs
 */
export const INITIAL_SCHEMA_SQL = `
CREATE TABLE tasks (
  id             TEXT    NOT NULL PRIMARY KEY,
  title          TEXT    NOT NULL DEFAULT '',
  status         TEXT    NOT NULL CHECK (status IN ${STATUSES}),
  blocked_reason TEXT,
  metadata       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX tasks_status ON tasks (status);

CREATE TABLE task_events (
  id          INTEGER PRIMARY KEY,
  task_id     TEXT    NOT NULL REFERENCES tasks (id),
  from_status TEXT    CHECK (from_status IS NULL OR from_status IN ${STATUSES}),
  to_status   TEXT    NOT NULL CHECK (to_status IN ${STATUSES}),
  reason      TEXT    NOT NULL,
  timestamp   INTEGER NOT NULL
);
CREATE INDEX task_events_task ON task_events (task_id, id);
CREATE TRIGGER task_events_no_update BEFORE UPDATE ON task_events
BEGIN SELECT RAISE(ABORT, 'task_events is append-only: rows cannot be updated'); END;
CREATE TRIGGER task_events_no_delete BEFORE DELETE ON task_events
BEGIN SELECT RAISE(ABORT, 'task_events is append-only: rows cannot be deleted'); END;

CREATE TABLE context_entries (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp     INTEGER NOT NULL,
  entry_type    TEXT    NOT NULL CHECK (entry_type IN ('decision', 'constraint', 'hypothesis', 'learning')),
  topic         TEXT    NOT NULL,
  content       TEXT    NOT NULL,
  related_tasks TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(related_tasks) AND json_type(related_tasks) = 'array'),
  confidence    REAL    NOT NULL DEFAULT 1 CHECK (confidence BETWEEN 0 AND 1),
  metadata      TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object')
);
CREATE INDEX context_entries_recovery_time ON context_entries (timestamp)
  WHERE topic IN ${RECOVERY};
CREATE INDEX context_entries_topic_time ON context_entries (topic, timestamp)
  WHERE topic NOT IN ${RECOVERY};
CREATE INDEX context_entries_time ON context_entries (timestamp);
CREATE TRIGGER context_entries_no_update BEFORE UPDATE ON context_entries
BEGIN SELECT RAISE(ABORT, 'context_entries is append-only: rows cannot be updated (delete old rows instead)'); END;

CREATE TABLE context_entry_tasks (
  task_id   TEXT    NOT NULL,
  timestamp INTEGER NOT NULL,
  entry_id  INTEGER NOT NULL,
  PRIMARY KEY (task_id, timestamp, entry_id)
) WITHOUT ROWID;
CREATE TRIGGER context_entries_link_tasks AFTER INSERT ON context_entries
BEGIN
  INSERT OR IGNORE INTO context_entry_tasks (task_id, timestamp, entry_id)
  SELECT value, NEW.timestamp, NEW.id FROM json_each(NEW.related_tasks) WHERE type = 'text';
END;
CREATE TRIGGER context_entries_unlink_tasks AFTER DELETE ON context_entries
BEGIN
  DELETE FROM context_entry_tasks
  WHERE task_id IN (SELECT value FROM json_each(OLD.related_tasks) WHERE type = 'text')
    AND timestamp = OLD.timestamp AND entry_id = OLD.id;
END;

CREATE TABLE attempts (
  id             INTEGER PRIMARY KEY,
  task_id        TEXT    NOT NULL,
  timestamp      INTEGER NOT NULL,
  status         TEXT    NOT NULL CHECK (status IN ${STATUSES}),
  blockers       TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(blockers) AND json_type(blockers) = 'array'),
  completed_work TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(completed_work) AND json_type(completed_work) = 'array'),
  session_id     TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX attempts_task_time ON attempts (task_id, timestamp);
CREATE INDEX attempts_time ON attempts (timestamp);
`;

/**
 * Applies schema version 1 (migration 1 in `MIGRATIONS`).
 * @example
 * up001Initial(db);
 */
export function up001Initial(db: BetterSqlite3.Database): void {
  db.exec(INITIAL_SCHEMA_SQL);
}
