import type { Attempt } from '../model/attempt.js';
import { type ContextEntry, type ContextEntryType, RECOVERY_TOPICS } from '../model/contextEntry.js';
import type { RunTally } from '../model/runTally.js';
import type { Task, TaskEvent, TaskStatus } from '../model/task.js';
import { RECOVERY_VIEW_TOPICS } from './recoveryView.js';

/**
 * The rows of loopguard's tables as SQL adapters read them, and their codecs into frozen model
 * objects: one definition for SQLite (JSON columns come back as text) and PostgreSQL (`jsonb` comes
 * back parsed). Each adapter keeps only its SQL and connection handling.
 */

/** A JSON column: text on SQLite, already parsed on PostgreSQL. */
type Json<T> = T | string;

function json<T>(value: Json<T>): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/** A row of `tasks`. */
export interface TaskRow {
  /** The task's id. */
  id: string;
  /** Its title. */
  title: string;
  /** Its status. */
  status: TaskStatus;
  /** Why it is blocked; `NULL` unless it is. */
  blocked_reason: string | null;
  /** Its metadata (JSON). */
  metadata: Json<Record<string, unknown>>;
  /** Created, epoch ms. */
  created_at: number;
  /** Last changed, epoch ms. */
  updated_at: number;
}

/** A row of `task_events`. */
export interface EventRow {
  /** The task. */
  task_id: string;
  /** The status left; `NULL` for the task's creation. */
  from_status: TaskStatus | null;
  /** The status entered. */
  to_status: TaskStatus;
  /** Why. */
  reason: string;
  /** When, epoch ms. */
  timestamp: number;
}

/** A row of `context_entries`. */
export interface EntryRow {
  /** The entry's id (increasing). */
  id: number;
  /** When it was written, epoch ms. */
  timestamp: number;
  /** Its type (`recovery`, `decision`, `observation`, …). */
  entry_type: ContextEntryType;
  /** Its topic (`loop_recovery`, `loop_stop`, `spend_warning`, …). */
  topic: string;
  /** Its text. */
  content: string;
  /** The tasks it relates to (a JSON list). */
  related_tasks: Json<string[]>;
  /** How sure the writer was, 0..1. */
  confidence: number;
  /** Its metadata (JSON). */
  metadata: Json<Record<string, unknown>>;
}

/** A row of `attempts`. */
export interface AttemptRow {
  /** The task attempted. */
  task_id: string;
  /** When, epoch ms. */
  timestamp: number;
  /** The status the attempt ended in. */
  status: TaskStatus;
  /** What blocked it (a JSON list). */
  blockers: Json<string[]>;
  /** What it completed (a JSON list). */
  completed_work: Json<string[]>;
  /** The agent session that made it. */
  session_id: string;
}

/** The columns of a {@link TaskRow}, in table order. */
export const TASK_COLUMNS = 'id, title, status, blocked_reason, metadata, created_at, updated_at';
/** The columns of an {@link AttemptRow}. */
export const ATTEMPT_COLUMNS = 'task_id, timestamp, status, blockers, completed_work, session_id';
/** The columns of an {@link EntryRow}, in table order. */
export const ENTRY_COLUMNS = 'id, timestamp, entry_type, topic, content, related_tasks, confidence, metadata';

/** The frozen task of a row. */
export function taskOf(row: TaskRow): Task {
  return Object.freeze({
    id: row.id,
    title: row.title,
    status: row.status,
    blockedReason: row.blocked_reason,
    metadata: Object.freeze(json(row.metadata)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/** The frozen task event of a row. */
export function eventOf(row: EventRow): TaskEvent {
  return Object.freeze({
    taskId: row.task_id,
    fromStatus: row.from_status,
    toStatus: row.to_status,
    reason: row.reason,
    timestamp: row.timestamp,
  });
}

/** The frozen context entry of a row (ids are strings in the model). */
export function entryOf(row: EntryRow): ContextEntry {
  return Object.freeze({
    id: String(row.id),
    timestamp: row.timestamp,
    entryType: row.entry_type,
    topic: row.topic,
    content: row.content,
    relatedTasks: Object.freeze(json(row.related_tasks)),
    confidence: row.confidence,
    metadata: Object.freeze(json(row.metadata)),
  });
}

/**
 * The values of an attempt's row, in {@link ATTEMPT_COLUMNS} order (the lists as JSON text): what
 * both adapters insert.
 * @example insert.run(...attemptRowValues(attempt));
 */
export function attemptRowValues(attempt: Attempt): [string, number, string, string, string, string] {
  return [
    attempt.taskId,
    attempt.timestamp,
    attempt.status,
    JSON.stringify(attempt.blockers),
    JSON.stringify(attempt.completedWork),
    attempt.sessionId,
  ];
}

/** The frozen attempt of a row. */
export function attemptOf(row: AttemptRow): Attempt {
  return Object.freeze({
    taskId: row.task_id,
    timestamp: row.timestamp,
    status: row.status,
    blockers: Object.freeze(json(row.blockers)),
    completedWork: Object.freeze(json(row.completed_work)),
    sessionId: row.session_id,
  });
}

/**
 * The recovery topics as an SQL list, `('loop_recovery', 'unblock_authority', 'loop_escalation')`,
 * built from {@link RECOVERY_TOPICS}: what the schemas' partial indexes and the queries that use them
 * spell (a partial index is used only when the query contains its condition).
 */
export const RECOVERY_TOPICS_SQL = `(${RECOVERY_TOPICS.map((topic) => `'${topic}'`).join(', ')})`;

/**
 * {@link RECOVERY_VIEW_TOPICS} as an SQL list: the recoveries page and the live feed query it, and
 * the partial indexes `context_entries_recovery_view_time` (SQLite migration 6, PostgreSQL migration 2) spell it.
 */
export const RECOVERY_VIEW_TOPICS_SQL = `(${RECOVERY_VIEW_TOPICS.map((topic) => `'${topic}'`).join(', ')})`;

/**
 * The task statuses as schema version 1's CHECK constraints spell them (SQLite and PostgreSQL
 * migration 1). Frozen text, deliberately not built from `TASK_STATUSES`: an applied migration must
 * keep producing the same schema, so a new status needs a new migration.
 */
export const SCHEMA_V1_TASK_STATUSES_SQL =
  "('pending', 'in_progress', 'needs_review', 'needs_improvement', 'done', 'blocked')";

/** Whether every topic is a recovery topic (then the recovery partial index applies). */
export function allRecoveryTopics(topics: readonly string[]): boolean {
  return topics.every((t) => (RECOVERY_TOPICS as readonly string[]).includes(t));
}

/**
 * The upsert both stores run for `recordRunTally` (one row a run in `adapter_runs`; docs/sql.md),
 * with the store's placeholder for the n-th value (1-based): `?` in SQLite, `$n` in PostgreSQL. Its
 * values are {@link runTallyValues}'s, in order.
 * @example db.prepare(runTallyUpsertSql(() => '?')).run(...runTallyValues(tally));
 */
export function runTallyUpsertSql(param: (n: number) => string): string {
  const values = Array.from({ length: 12 }, (_, i) => param(i + 1)).join(', ');
  return `INSERT INTO adapter_runs (adapter, run_id, project_dir, started_at, updated_at, tool_calls, tokens, cost_usd,
    unpriced_tokens, budget_usd, budget_tokens, ended_at) VALUES (${values})
  ON CONFLICT (adapter, run_id) DO UPDATE SET project_dir = excluded.project_dir, updated_at = excluded.updated_at,
    tool_calls = excluded.tool_calls, tokens = excluded.tokens, cost_usd = excluded.cost_usd,
    unpriced_tokens = excluded.unpriced_tokens, budget_usd = excluded.budget_usd,
    budget_tokens = excluded.budget_tokens, ended_at = excluded.ended_at`;
}

/** The values of {@link runTallyUpsertSql} for `tally` (its time starts the run's row and updates it). */
export function runTallyValues(tally: RunTally): unknown[] {
  const { at } = tally;
  return [
    tally.adapter,
    tally.runId,
    tally.projectDir,
    at,
    at,
    tally.toolCalls,
    tally.tokens,
    tally.costUsd,
    tally.unpricedTokens,
    tally.budgetUsd,
    tally.budgetTokens,
    tally.ended ? at : null,
  ];
}
