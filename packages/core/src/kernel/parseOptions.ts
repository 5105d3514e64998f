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
  if (issue?.code === 'unrecognized_keys') {
    const [key = ''] = issue.keys;
    if (issue.path.length > 0) {
      throw new ConfigurationError(
        `${what}: "${issue.path.map(String).join('.')}" has an unknown key "${key}".`,
      );
    }
    const known = knownKeysOf(schema);
    const hint = nearest(key, known);
    throw new ConfigurationError(
      `${what}: unknown option "${key}"${hint === undefined ? '' : ` (did you mean "${hint}"?)`}. Known options: ${known.join(', ')}.`,
    );
  }
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

/** The keys of an object schema (through refinements); empty for other schemas. */
function knownKeysOf(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape === undefined ? [] : Object.keys(shape);
}

/** The known key closest to `key` by edit distance, when it is close enough to be a typo. */
function nearest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance (option names are short). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}
