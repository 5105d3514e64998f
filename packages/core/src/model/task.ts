import { InvalidInputError } from '../kernel/errors.js';
import { describeValue } from '../kernel/validate.js';

/**
 * The statuses a task moves through.
 * `pending | in_progress | needs_review | needs_improvement | done | blocked`.
 */
export const TASK_STATUSES = [
  'pending',
  'in_progress',
  'needs_review',
  'needs_improvement',
  'done',
  'blocked',
] as const;

/** One of {@link TASK_STATUSES}. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A unit of work the autopilot picks, as the state machine stores it. */
export interface Task {
  /** Unique id, for example `T3.4.2`. */
  readonly id: string;
  /** Human-readable title; empty when none was given. */
  readonly title: string;
  /** Current status. */
  readonly status: TaskStatus;
  /** Why the task is blocked; `null` unless `status` is `blocked`. */
  readonly blockedReason: string | null;
  /** Free-form JSON metadata. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Creation time, epoch ms. */
  readonly createdAt: number;
  /** Time of the last change, epoch ms. */
  readonly updatedAt: number;
}

/** What a caller gives to create or replace a task. */
export interface TaskInput {
  /** Unique id. */
  id: string;
  /** Title. @default '' */
  title?: string;
  /** Initial status. @default 'pending' */
  status?: TaskStatus;
  /** Free-form JSON metadata. @default {} */
  metadata?: Record<string, unknown>;
}

/** One status transition, as recorded append-only in the task's history. */
export interface TaskEvent {
  /** The task. */
  readonly taskId: string;
  /** Status before the transition; `null` when the task was created. */
  readonly fromStatus: TaskStatus | null;
  /** Status after the transition. */
  readonly toStatus: TaskStatus;
  /** Why the transition happened. */
  readonly reason: string;
  /** When, epoch ms. */
  readonly timestamp: number;
}

/** Whether `value` is one of {@link TASK_STATUSES}. */
export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === 'string' && (TASK_STATUSES as readonly string[]).includes(value);
}

/** Throws unless `value` is a task status. */
export function assertTaskStatus(value: unknown, name: string): asserts value is TaskStatus {
  if (!isTaskStatus(value)) {
    throw new InvalidInputError(
      `${name} must be one of ${TASK_STATUSES.join(', ')}, got ${describeValue(value)}`,
    );
  }
}
