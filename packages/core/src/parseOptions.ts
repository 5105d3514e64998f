import type { z } from 'zod';
import { ConfigurationError } from './errors.js';
import { describeValue } from './validate.js';

/**
 * Validates `input` against a zod schema and returns the parsed value with defaults applied.
 * @param what - how the caller names the object, for example `LoopDetector options`.
 * @throws ConfigurationError naming the first offending option and its value.
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  let value: unknown = input;
  for (const key of issue?.path ?? []) {
    value =
      value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  throw new ConfigurationError(
    `${what}: ${path === '' ? 'value' : `"${path}"`} ${issue?.message ?? 'is invalid'} (got ${describeValue(value)})`,
  );
}
