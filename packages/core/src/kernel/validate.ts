import { InvalidInputError } from './errors.js';

/**
 * Describes a rejected value briefly for an error message: `undefined`, `null`, `number 42`, `"text"`,
 * `an array`, `an object`, `a function`, `a revoked Proxy`. Never throws.
 * @example describeValue(undefined); // 'undefined'
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  switch (typeof value) {
    case 'string':
      return value === '' ? 'an empty string' : JSON.stringify(value.slice(0, 80));
    case 'bigint':
      return `the BigInt ${String(value)}n`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
  }
  if (typeof value === 'object') {
    try {
      return Array.isArray(value) ? 'an array' : 'an object';
    } catch {
      return 'a revoked Proxy';
    }
  }
  return `${typeof value} ${String(value)}`;
}

/** Throws unless `value` is a non-empty string. */
export function assertNonEmptyString(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidInputError(`${name} must be a non-empty string, got ${describeValue(value)}`);
  }
}

/** Throws unless `value` is an array of strings. */
export function assertStringArray(value: unknown, name: string): asserts value is readonly string[] {
  if (!isArraySafe(value)) {
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

/**
 * A copy of `value` checked to be an array of strings: the length and every element are read once,
 * and the copy is what was checked, so a value that changes while (or after) it is validated cannot
 * slip through.
 * @throws InvalidInputError naming the argument and the first bad element.
 * @example const blockers = copyStringArray(input, 'blockers');
 */
export function copyStringArray(value: unknown, name: string): string[] {
  if (!isArraySafe(value)) {
    throw new InvalidInputError(`${name} must be an array of strings, got ${describeValue(value)}`);
  }
  const length = value.length;
  const copy: string[] = [];
  for (let i = 0; i < length; i++) {
    const item = value[i];
    if (typeof item !== 'string') {
      throw new InvalidInputError(
        `${name} must be an array of strings, but ${name}[${i}] is ${describeValue(item)}`,
      );
    }
    copy.push(item);
  }
  return copy;
}

/** Throws unless `value` is an integer ≥ 0 (a count limit of a port call). */
export function assertLimit(value: unknown, name: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidInputError(`${name} must be a non-negative integer, got ${describeValue(value)}`);
  }
}

/** Throws unless `value` is a finite number. */
export function assertFiniteNumber(value: unknown, name: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidInputError(`${name} must be a finite number, got ${describeValue(value)}`);
  }
}

/** `Array.isArray` that answers `false` for a revoked Proxy instead of throwing. */
function isArraySafe(value: unknown): value is unknown[] {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}
