import { InvalidInputError } from './errors.js';
import { isTaskStatus, TASK_STATUSES, type TaskStatus } from './task.js';

/** Describes a rejected value briefly for an error message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value === '' ? 'an empty string' : JSON.stringify(value.slice(0, 80));
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Throws unless `value` is a non-empty string. */
export function assertNonEmptyString(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidInputError(`${name} must be a non-empty string, got ${describeValue(value)}`);
  }
}

/** Throws unless `value` is a task status. */
export function assertTaskStatus(value: unknown, name: string): asserts value is TaskStatus {
  if (!isTaskStatus(value)) {
    throw new InvalidInputError(
      `${name} must be one of ${TASK_STATUSES.join(', ')}, got ${describeValue(value)}`,
    );
  }
}

/** Throws unless `value` is an array of strings. */
export function assertStringArray(value: unknown, name: string): asserts value is readonly string[] {
  if (!Array.isArray(value)) {
    throw new InvalidInputError(`${name} must be an array of strings, got ${describeValue(value)}`);
  }
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== 'string') {
      throw new InvalidInputError(
        `${name} must be an array of strings, but ${name}[${i}] is ${describeValue(value[i])}`,
      );
    }
  }
}

/** Throws unless `value` is a finite number. */
export function assertFiniteNumber(value: unknown, name: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidInputError(`${name} must be a finite number, got ${describeValue(value)}`);
  }
}
