import { InvalidInputError } from '@loopguard/core';

/** Where in `value` a string (or an object key) holds NUL, as a path below `name`; `undefined` when none does. */
function nulPath(value: unknown, name: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? name : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${name}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const path = /^[A-Za-z_$][\w$]*$/.test(key) ? `${name}.${key}` : `${name}[${JSON.stringify(key)}]`;
    if (key.includes('\u0000')) return `${path} (the key)`;
    const found = nulPath(item, path);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Throws when a string inside `value` (a string, or the strings and keys of arrays and plain
 * objects) holds the NUL character `\u0000`, which PostgreSQL's `text` and `jsonb` cannot store:
 * an `InvalidInputError` naming the argument and where in it, before anything is sent.
 * @param name - how the caller calls the argument, e.g. `attempt`.
 * @throws InvalidInputError naming the argument.
 * @example assertNoNul(input, 'input'); // throws 'input.title contains the NUL character …'
 */
export function assertNoNul(value: unknown, name: string): void {
  const path = nulPath(value, name);
  if (path !== undefined) {
    throw new InvalidInputError(
      `${path} contains the NUL character \\u0000, which PostgreSQL cannot store in text or JSON`,
    );
  }
}
