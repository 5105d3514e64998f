import type { z } from 'zod';
import { ConfigurationError, InvalidInputError } from '../kernel/errors.js';
import { parseOptions } from '../kernel/parseOptions.js';

/**
 * Validates a call's argument against a zod schema, like {@link parseOptions} but for input rather
 * than configuration: the error is an {@link InvalidInputError} naming the argument and the field.
 *
 * @param what - the argument's name, for example `iterationHistory`.
 * @throws InvalidInputError naming the first offending field and its value.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  try {
    return parseOptions(schema, input, what);
  } catch (error) {
    if (error instanceof ConfigurationError) throw new InvalidInputError(error.message, { cause: error });
    throw error;
  }
}
