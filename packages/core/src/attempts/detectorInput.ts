import { z } from 'zod';
import { parseInput } from '../guards/parseInput.js';
import { InvalidInputError } from '../kernel/errors.js';
import { assertNonEmptyString, describeValue } from '../kernel/validate.js';
import { assertTaskStatus } from '../model/task.js';
import type { AttemptWithTransition, RecoveryQuery, StatusPageQuery } from './detectorTypes.js';
import type { ResolveEscalationInput } from './escalation.js';

/**
 * The argument checks of both detector runners, at their public edge: each returns what was
 * checked, so that a value that changes after the check cannot slip through.
 */

/** Checks `recordAttemptWithTransition`'s input object and its reason (the attempt is checked when built). */
export function checkTransitionInput(input: AttemptWithTransition): AttemptWithTransition {
  if (input === null || typeof input !== 'object') {
    throw new InvalidInputError(`input must be an object, got ${describeValue(input)}`);
  }
  assertNonEmptyString(input.reason, 'input.reason');
  return input;
}

/** Checks `resolveEscalation`'s input. */
export function checkResolveInput(input: ResolveEscalationInput): ResolveEscalationInput {
  if (input === null || typeof input !== 'object') {
    throw new InvalidInputError(`input must be an object with a note, got ${describeValue(input)}`);
  }
  const checked: ResolveEscalationInput = { note: input.note };
  assertNonEmptyString(checked.note, 'input.note');
  if (input.resolution !== undefined) {
    if (input.resolution !== 'resolved' && input.resolution !== 'acknowledged') {
      throw new InvalidInputError(
        `input.resolution must be 'resolved' or 'acknowledged', got ${describeValue(input.resolution)}`,
      );
    }
    checked.resolution = input.resolution;
  }
  if (input.status !== undefined) {
    assertTaskStatus(input.status, 'input.status');
    checked.status = input.status;
  }
  if (input.by !== undefined) {
    assertNonEmptyString(input.by, 'input.by');
    checked.by = input.by;
  }
  return checked;
}

/** Checks `listRecoveries`' query; returns the task filter and the limit (default 100). */
export function checkRecoveryQuery(query: RecoveryQuery): { taskId?: string; limit: number } {
  if (query === null || typeof query !== 'object') {
    throw new InvalidInputError(`query must be an object, got ${describeValue(query)}`);
  }
  const taskId = query.taskId;
  if (taskId !== undefined) assertNonEmptyString(taskId, 'query.taskId');
  const limit = query.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidInputError(`query.limit must be a positive integer, got ${describeValue(query.limit)}`);
  }
  return taskId === undefined ? { limit } : { taskId, limit };
}

const statusPageQuerySchema = z.strictObject({
  limit: z.number().int().min(1).max(10_000),
  cursor: z.string().min(1).optional(),
});

/** Checks `getStatus`'s page query. */
export function checkStatusPage(page: StatusPageQuery): StatusPageQuery {
  const { limit, cursor } = parseInput(statusPageQuerySchema, page, 'page');
  return cursor === undefined ? { limit } : { limit, cursor };
}
