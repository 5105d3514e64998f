import { InvalidInputError } from '../kernel/errors.js';
import {
  assertFiniteNumber,
  assertNonEmptyString,
  assertStringArray,
  copyStringArray,
  describeValue,
} from '../kernel/validate.js';
import { CONTEXT_ENTRY_TYPES, type ContextEntryInput, type ContextEntryQuery } from './contextEntry.js';
import { assertTaskId } from './sizeLimits.js';
import { storableMetadata } from './storableJson.js';
import { assertTaskStatus, type TaskInput, type TaskStatus } from './task.js';

function assertPlainObject(value: unknown, name: string): void {
  let isArray: boolean;
  try {
    isArray = Array.isArray(value);
  } catch {
    throw new InvalidInputError(`${name} must be a plain object, got a revoked Proxy`);
  }
  if (value === null || typeof value !== 'object' || isArray) {
    throw new InvalidInputError(`${name} must be a plain object, got ${describeValue(value)}`);
  }
}

/**
 * Validates a {@link TaskInput} and returns what to store: every state-machine adapter calls it
 * before writing and writes the returned copy (its metadata deep-copied by `storableMetadata`, so
 * every adapter rejects the same unstorable metadata with the same error).
 * @throws InvalidInputError naming the field.
 * @example input = validateTaskInput(input);
 */
export function validateTaskInput(input: TaskInput): TaskInput {
  assertPlainObject(input, 'task');
  const { id, title, status, metadata } = input;
  assertTaskId(id, 'task.id');
  if (title !== undefined && typeof title !== 'string') {
    throw new InvalidInputError(`task.title must be a string, got ${describeValue(title)}`);
  }
  if (status !== undefined) assertTaskStatus(status, 'task.status');
  return {
    id,
    ...(title === undefined ? {} : { title }),
    ...(status === undefined ? {} : { status }),
    ...(metadata === undefined ? {} : { metadata: storableMetadata(metadata, 'task.metadata') }),
  };
}

/**
 * Validates a {@link ContextEntryInput} and returns what to store: every state-machine adapter calls
 * it before writing and writes the returned copy (related tasks copied before they are checked,
 * metadata deep-copied by `storableMetadata`).
 * @throws InvalidInputError naming the field.
 * @example input = validateContextEntryInput(input);
 */
export function validateContextEntryInput(input: ContextEntryInput): ContextEntryInput {
  assertPlainObject(input, 'entry');
  const { entryType, topic, content, confidence } = input;
  if (!(CONTEXT_ENTRY_TYPES as readonly string[]).includes(entryType)) {
    throw new InvalidInputError(
      `entry.entryType must be one of ${CONTEXT_ENTRY_TYPES.join(', ')}, got ${describeValue(entryType)}`,
    );
  }
  assertNonEmptyString(topic, 'entry.topic');
  if (typeof content !== 'string') {
    throw new InvalidInputError(`entry.content must be a string, got ${describeValue(content)}`);
  }
  const relatedTasks =
    input.relatedTasks === undefined ? undefined : copyStringArray(input.relatedTasks, 'entry.relatedTasks');
  if (confidence !== undefined && !(confidence >= 0 && confidence <= 1)) {
    throw new InvalidInputError(
      `entry.confidence must be a number in 0..1, got ${describeValue(confidence)}`,
    );
  }
  const metadata =
    input.metadata === undefined ? undefined : storableMetadata(input.metadata, 'entry.metadata');
  return {
    entryType,
    topic,
    content,
    ...(relatedTasks === undefined ? {} : { relatedTasks }),
    ...(confidence === undefined ? {} : { confidence }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** Validates a {@link ContextEntryQuery}; every state-machine adapter calls it before reading. */
export function validateContextEntryQuery(query: ContextEntryQuery): void {
  assertPlainObject(query, 'query');
  if (query.topics !== undefined) assertStringArray(query.topics, 'query.topics');
  if (query.taskId !== undefined) assertNonEmptyString(query.taskId, 'query.taskId');
  if (query.since !== undefined) assertFiniteNumber(query.since, 'query.since');
  if (query.limit !== undefined && !(Number.isInteger(query.limit) && query.limit >= 0)) {
    throw new InvalidInputError(
      `query.limit must be a non-negative integer, got ${describeValue(query.limit)}`,
    );
  }
}

/**
 * Checks `listTasks`' filter; returns the statuses to keep, or `undefined` for every task.
 * @throws InvalidInputError naming the filter or the bad status.
 */
export function validateTaskFilter(filter: {
  statuses?: readonly TaskStatus[];
}): readonly TaskStatus[] | undefined {
  if (filter === null || typeof filter !== 'object') {
    throw new InvalidInputError(`filter must be an object, got ${describeValue(filter)}`);
  }
  const { statuses } = filter;
  if (statuses !== undefined) {
    assertStringArray(statuses, 'filter.statuses');
    statuses.forEach((status, i) => {
      assertTaskStatus(status, `filter.statuses[${i}]`);
    });
  }
  return statuses;
}

/**
 * Checks `transition`'s arguments.
 * @throws InvalidInputError naming the argument.
 */
export function validateTransition(taskId: string, status: TaskStatus, reason: string): void {
  assertNonEmptyString(taskId, 'taskId');
  assertTaskStatus(status, 'status');
  assertNonEmptyString(reason, 'reason');
}
