import { InvalidInputError, LoopGuardError } from '../kernel/errors.js';
import { describeValue } from '../kernel/validate.js';

/**
 * How deep metadata may nest (objects and arrays inside each other). Deeper values are rejected, so
 * that copying and storing them cannot overflow the stack.
 */
export const MAX_METADATA_DEPTH = 64;

const STORABLE =
  'metadata must be JSON data: strings, finite numbers, booleans, null, arrays and plain objects';

/**
 * A deep copy of `value` that every adapter stores and reads back identically, or an
 * InvalidInputError naming the first part that cannot be stored: a BigInt, a function, a symbol,
 * `NaN` or ±Infinity, `undefined` inside an array, a circular reference, an object that is not plain
 * (a `Date`, a `Map`, a class instance), a revoked Proxy or a getter that throws, or nesting deeper
 * than {@link MAX_METADATA_DEPTH}. Object properties whose value is `undefined` are left out (as JSON
 * does). Every property is read once, so the copy is exactly what was checked.
 * @param name - how the caller calls the value, e.g. `entry.metadata`.
 * @throws InvalidInputError naming the culprit's path.
 * @example storableCopy({ n: 1n }, 'task.metadata'); // throws "task.metadata.n is the BigInt 1n, which cannot be stored (…)"
 */
export function storableCopy(value: unknown, name: string): unknown {
  return copyValue(value, name, new Set(), 0);
}

/**
 * {@link storableCopy} of a metadata object: the value must be a plain object.
 * @throws InvalidInputError naming the culprit.
 * @example const metadata = storableMetadata(input.metadata, 'entry.metadata');
 */
export function storableMetadata(value: unknown, name: string): Record<string, unknown> {
  if (!isPlainObject(value, name)) {
    throw new InvalidInputError(`${name} must be a plain object, got ${describeValue(value)}`);
  }
  return storableCopy(value, name) as Record<string, unknown>;
}

function reject(path: string, what: string): never {
  throw new InvalidInputError(`${path} is ${what}, which cannot be stored (${STORABLE})`);
}

function copyValue(value: unknown, path: string, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : reject(path, String(value));
    case 'object':
      if (value === null) return null;
      break;
    case 'undefined':
      return reject(path, 'undefined');
    default:
      return reject(path, describeValue(value));
  }
  const object = value as object;
  if (ancestors.has(object)) reject(path, 'a circular reference to an enclosing value');
  if (depth >= MAX_METADATA_DEPTH) reject(path, `nested deeper than ${MAX_METADATA_DEPTH} levels`);
  const isArray = isArrayOrRevoked(object, path);
  try {
    ancestors.add(object);
    if (isArray) {
      const array = object as unknown[];
      const length = array.length;
      const copy: unknown[] = [];
      for (let i = 0; i < length; i++) copy.push(copyValue(array[i], `${path}[${i}]`, ancestors, depth + 1));
      return copy;
    }
    if (!isPlainObject(object, path)) reject(path, describeInstance(object));
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[key];
      if (item !== undefined) copy[key] = copyValue(item, `${path}${keyPath(key)}`, ancestors, depth + 1);
    }
    return copy;
  } catch (error) {
    if (error instanceof LoopGuardError) throw error;
    throw new InvalidInputError(
      `${path} could not be read (${error instanceof Error ? error.message : String(error)}), so it cannot be stored`,
      { cause: error },
    );
  } finally {
    ancestors.delete(object);
  }
}

/** `Array.isArray`, rejecting a revoked Proxy (on which it throws) by name. */
function isArrayOrRevoked(object: object, path: string): boolean {
  try {
    return Array.isArray(object);
  } catch {
    return reject(path, 'a revoked Proxy');
  }
}

/** Whether `value` is an object whose prototype is `Object.prototype` or `null`. */
function isPlainObject(value: unknown, path: string): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  try {
    if (Array.isArray(value)) return false;
    const prototype = Object.getPrototypeOf(value);
    return prototype === Object.prototype || prototype === null;
  } catch {
    return reject(path, 'a revoked Proxy');
  }
}

function describeInstance(object: object): string {
  const constructorName = (Object.getPrototypeOf(object) as { constructor?: { name?: unknown } })?.constructor
    ?.name;
  return typeof constructorName === 'string' && constructorName !== ''
    ? `an instance of ${constructorName}, not a plain object`
    : 'not a plain object';
}

function keyPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
