import { z } from 'zod';
import { InvalidInputError } from '../kernel/errors.js';
import { describeValue } from '../kernel/validate.js';
import type { IterationHistoryEntry } from '../model/iterationRecord.js';
import { parseInput } from './parseInput.js';

export type {
  IterationConfig,
  IterationHistoryEntry,
  ValidationFlag,
  ValidationResult,
} from '../model/iterationRecord.js';

const historySchema = z.array(
  z.looseObject({
    iteration: z.number().int().min(0),
    validationResult: z.looseObject({
      passed: z.boolean().optional(),
      score: z.number().min(0).max(1).optional(),
      flags: z.array(z.looseObject({ message: z.string() })).optional(),
    }),
  }),
);

/**
 * Throws unless `value` is a well-formed iteration history.
 * @throws InvalidInputError naming `name`, the entry and the field.
 */
export function assertIterationHistory(
  value: unknown,
  name: string,
): asserts value is readonly IterationHistoryEntry[] {
  if (!Array.isArray(value))
    throw new InvalidInputError(`${name} must be an array, got ${describeValue(value)}`);
  parseInput(historySchema, value, name);
}

/** Throws unless `value` is an integer ≥ `min`. */
export function assertInteger(value: unknown, name: string, min: number): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidInputError(`${name} must be an integer ≥ ${min}, got ${describeValue(value)}`);
  }
}
