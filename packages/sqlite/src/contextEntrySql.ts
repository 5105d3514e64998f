import { RECOVERY_TOPICS } from '@loopguard/core';
import { RECOVERY_TOPICS_SQL } from '@loopguard/core/internal';

const COLUMNS =
  'e.id, e.timestamp, e.entry_type, e.topic, e.content, e.related_tasks, e.confidence, e.metadata';

/** The shape of a `listContextEntries` query, which decides the SQL text (one cached statement each). */
export interface EntryQueryShape {
  /** Whether the query filters by a related task. */
  byTask: boolean;
  /** `none`: no topic filter; `one`: a single topic; `many`: several. */
  topics: 'none' | 'one' | 'many';
  /** Which partial index the topics allow: all recovery topics, none of them, or a mix. */
  topicClass: 'recovery' | 'other' | 'mixed';
  /** Whether the query has a lower time bound. */
  since: boolean;
}

/** Classifies requested topics against the recovery topics. */
export function topicClassOf(topics: readonly string[]): EntryQueryShape['topicClass'] {
  let recovery = 0;
  for (const topic of topics) if ((RECOVERY_TOPICS as readonly string[]).includes(topic)) recovery++;
  if (recovery === topics.length) return 'recovery';
  return recovery === 0 ? 'other' : 'mixed';
}

/** A stable key of the shape, for the statement cache. */
export function shapeKey(shape: EntryQueryShape): string {
  return `${shape.byTask ? 't' : '-'}${shape.topics}${shape.topicClass}${shape.since ? 's' : '-'}`;
}

/**
 * The SQL of a `listContextEntries` query. Parameters, in order: task id (when `byTask`), the topic
 * (`one`) or a JSON array of topics (`many`), `since` (when given), the limit (`-1` for none).
 *
 * The literal recovery-topic terms let SQLite use the partial indexes
 * `context_entries_recovery_time` / `context_entries_topic_time` (a partial index is only used when
 * the query's WHERE clause contains its condition); they never change the result.
 */
export function entryQuerySql(shape: EntryQueryShape): string {
  const where: string[] = [];
  const timeColumn = shape.byTask ? 'l.timestamp' : 'e.timestamp';
  if (shape.byTask) where.push('l.task_id = ?');
  if (shape.topics !== 'none') {
    if (shape.topicClass === 'recovery') where.push(`e.topic IN ${RECOVERY_TOPICS_SQL}`);
    else if (shape.topicClass === 'other') where.push(`e.topic NOT IN ${RECOVERY_TOPICS_SQL}`);
    where.push(shape.topics === 'one' ? 'e.topic = ?' : 'e.topic IN (SELECT value FROM json_each(?))');
  }
  if (shape.since) where.push(`${timeColumn} >= ?`);
  const from = shape.byTask
    ? 'context_entry_tasks AS l JOIN context_entries AS e ON e.id = l.entry_id'
    : 'context_entries AS e';
  const order = shape.byTask ? 'l.timestamp DESC, l.entry_id DESC' : 'e.timestamp DESC, e.id DESC';
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return `SELECT ${COLUMNS} FROM ${from}${filter} ORDER BY ${order} LIMIT ?`;
}
