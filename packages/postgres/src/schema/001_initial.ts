import { RECOVERY_TOPICS_SQL, SCHEMA_V1_TASK_STATUSES_SQL } from '@loopguard/core/internal';

const STATUSES = SCHEMA_V1_TASK_STATUSES_SQL;
/** The recovery topics, spelled as the seed's query spells them: the partial index matches on this text. */
const RECOVERY = RECOVERY_TOPICS_SQL;

/**
 * Schema version 1 on PostgreSQL: the tables of the SQLite schema (`tasks`, `task_events`,
 * `context_entries`, `attempts`) with `jsonb` for the JSON columns and `bigint` epoch milliseconds
 * for times. Documented in `docs/scale-out.md`.
 * @example
 * await client.query(INITIAL_SCHEMA_SQL); // what migration 1 runs
 */
export const INITIAL_SCHEMA_SQL = `
CREATE TABLE tasks (
  id             text    NOT NULL PRIMARY KEY,
  title          text    NOT NULL DEFAULT '',
  status         text    NOT NULL CHECK (status IN ${STATUSES}),
  blocked_reason text,
  metadata       jsonb   NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  created_at     bigint  NOT NULL,
  updated_at     bigint  NOT NULL,
  created_seq    bigint  GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX tasks_status ON tasks (status, created_seq);
CREATE INDEX tasks_created ON tasks (created_seq);

CREATE TABLE task_events (
  id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id     text    NOT NULL REFERENCES tasks (id),
  from_status text    CHECK (from_status IS NULL OR from_status IN ${STATUSES}),
  to_status   text    NOT NULL CHECK (to_status IN ${STATUSES}),
  reason      text    NOT NULL,
  timestamp   bigint  NOT NULL
);
CREATE INDEX task_events_task ON task_events (task_id, id);

CREATE FUNCTION loopguard_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: rows cannot be %d', TG_TABLE_NAME, lower(TG_OP);
END $$;
CREATE TRIGGER task_events_append_only BEFORE UPDATE OR DELETE ON task_events
  FOR EACH ROW EXECUTE FUNCTION loopguard_append_only();

CREATE TABLE context_entries (
  id            bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  timestamp     bigint  NOT NULL,
  entry_type    text    NOT NULL CHECK (entry_type IN ('decision', 'constraint', 'hypothesis', 'learning')),
  topic         text    NOT NULL,
  content       text    NOT NULL,
  related_tasks jsonb   NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(related_tasks) = 'array'),
  confidence    double precision NOT NULL DEFAULT 1 CHECK (confidence BETWEEN 0 AND 1),
  metadata      jsonb   NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object')
);
CREATE INDEX context_entries_recovery_time ON context_entries (timestamp DESC, id DESC)
  WHERE topic IN ${RECOVERY};
CREATE INDEX context_entries_topic_time ON context_entries (topic, timestamp DESC, id DESC);
CREATE INDEX context_entries_time ON context_entries (timestamp DESC, id DESC);
CREATE INDEX context_entries_related_tasks ON context_entries USING gin (related_tasks jsonb_path_ops);
CREATE TRIGGER context_entries_no_update BEFORE UPDATE ON context_entries
  FOR EACH ROW EXECUTE FUNCTION loopguard_append_only();

CREATE TABLE attempts (
  id             bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id        text    NOT NULL,
  timestamp      bigint  NOT NULL,
  status         text    NOT NULL CHECK (status IN ${STATUSES}),
  blockers       jsonb   NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(blockers) = 'array'),
  completed_work jsonb   NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(completed_work) = 'array'),
  session_id     text    NOT NULL DEFAULT ''
);
CREATE INDEX attempts_task_time ON attempts (task_id, timestamp, id);
CREATE INDEX attempts_time ON attempts (timestamp);
`;
