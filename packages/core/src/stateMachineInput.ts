import { CONTEXT_ENTRY_TYPES, type ContextEntryInput, type ContextEntryQuery } from './contextEntry.js';
import { InvalidInputError } from './errors.js';
import type { TaskInput } from './task.js';
import {
  assertFiniteNumber,
  assertNonEmptyString,
  assertStringArray,
  assertTaskStatus,
  describeValue,
} from './validate.js';

function assertPlainObject(value: unknown, name: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidInputError(`${name} must be a plain object, got ${describeValue(value)}`);
  }
}

/** Validates a {@link TaskInput}; every state-machine adapter calls it before writing. */
export function validateTaskInput(input: TaskInput): void {
  assertPlainObject(input, 'task');
  assertNonEmptyString(input.id, 'task.id');
  if (input.title !== undefined && typeof input.title !== 'string') {
    throw new InvalidInputError(`task.title must be a string, got ${describeValue(input.title)}`);
  }
  if (input.status !== undefined) assertTaskStatus(input.status, 'task.status');
  if (input.metadata !== undefined) assertPlainObject(input.metadata, 'task.metadata');
}

/** Validates a {@link ContextEntryInput}; every state-machine adapter calls it before writing. */
export function validateContextEntryInput(input: ContextEntryInput): void {
  assertPlainObject(input, 'entry');
  if (!(CONTEXT_ENTRY_TYPES as readonly string[]).includes(input.entryType)) {
    throw new InvalidInputError(
      `entry.entryType must be one of ${CONTEXT_ENTRY_TYPES.join(', ')}, got ${describeValue(input.entryType)}`,
    );
  }
  assertNonEmptyString(input.topic, 'entry.topic');
  if (typeof input.content !== 'string') {
    throw new InvalidInputError(`entry.content must be a string, got ${describeValue(input.content)}`);
  }
  if (input.relatedTasks !== undefined) assertStringArray(input.relatedTasks, 'entry.relatedTasks');
  if (input.confidence !== undefined && !(input.confidence >= 0 && input.confidence <= 1)) {
    throw new InvalidInputError(
      `entry.confidence must be a number in 0..1, got ${describeValue(input.confidence)}`,
    );
  }
  if (input.metadata !== undefined) assertPlainObject(input.metadata, 'entry.metadata');
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
