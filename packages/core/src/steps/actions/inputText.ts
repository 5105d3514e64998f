import { InvalidInputError } from '../../kernel/errors.js';

/** Deepest nesting of an action input that is accepted (objects and arrays inside each other). */
export const MAX_INPUT_DEPTH = 64;

/**
 * Top-level input fields that carry the agent's reasoning, not the action (Claude Code's Bash tool
 * takes a `description` beside its `command`): left out of action equality, so a repeated command
 * with reworded reasoning is still a repeat.
 */
export const REASONING_FIELDS: readonly string[] = Object.freeze([
  'description',
  'reason',
  'reasoning',
  'thought',
  'explanation',
]);

function reject(path: string, problem: string): never {
  throw new InvalidInputError(`${path} ${problem}`);
}

/** Reads `record[key]`, turning a throwing getter or Proxy trap into a typed error naming the field. */
function read(record: Record<string, unknown>, key: string | number, path: string): unknown {
  try {
    return record[key];
  } catch (error) {
    return reject(`${path}.${key}`, `cannot be read: ${(error as Error)?.message ?? String(error)}`);
  }
}

function keysOf(record: object, path: string): string[] {
  let keys: string[];
  try {
    keys = Object.keys(record);
  } catch (error) {
    return reject(path, `cannot be enumerated: ${(error as Error)?.message ?? String(error)}`);
  }
  return sortKeys(keys);
}

/**
 * `keys.sort()` (UTF-16 code unit order, as `<` compares strings), in place. An input has a few
 * keys: an insertion sort orders them without the copy `Array.prototype.sort` makes of its array
 * on every call, garbage the collector pays for on every object input.
 */
export function sortKeys(keys: string[]): string[] {
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** Whether `value` is written as it is: anything but an object or a BigInt (the two that may fail). */
function isLeaf(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'bigint');
}

/** A leaf's text (see {@link isLeaf}). */
function leafText(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/**
 * `value`'s text; `without` is the top-level fields left out (`undefined` below the top: none).
 */
function serialise(
  value: unknown,
  path: string,
  depth: number,
  stack: object[],
  without: readonly string[] | undefined,
): string {
  if (typeof value === 'bigint') reject(path, `must be JSON-serialisable, got BigInt ${value}n`);
  if (isLeaf(value)) return leafText(value);
  const object = value as object;
  if (depth >= MAX_INPUT_DEPTH) reject(path, `is nested deeper than ${MAX_INPUT_DEPTH} levels`);
  if (stack.includes(object)) reject(path, 'refers to itself (a cycle); it must be JSON-serialisable');
  stack.push(object);
  let text: string;
  let isArray: boolean;
  try {
    isArray = Array.isArray(object);
  } catch (error) {
    return reject(path, `cannot be read: ${(error as Error)?.message ?? String(error)}`);
  }
  // A field's path is written only for a field that is serialised in turn (or refused): most are
  // strings and numbers, written at once.
  if (isArray) {
    const items = object as unknown as Record<string, unknown>;
    const length = read(items, 'length', path) as number;
    text = '[';
    for (let i = 0; i < length; i++) {
      const item = read(items, i, path);
      if (i > 0) text += ',';
      text += isLeaf(item) ? leafText(item) : serialise(item, `${path}[${i}]`, depth + 1, stack, undefined);
    }
    text += ']';
  } else {
    const record = object as Record<string, unknown>;
    text = '{';
    for (const key of keysOf(record, path)) {
      if (without !== undefined && (REASONING_FIELDS.includes(key) || without.includes(key))) continue;
      const field = read(record, key, path);
      if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
      if (text.length > 1) text += ',';
      text += `${JSON.stringify(key)}:`;
      text += isLeaf(field)
        ? leafText(field)
        : serialise(field, `${path}.${key}`, depth + 1, stack, undefined);
    }
    text += '}';
  }
  stack.pop();
  return text;
}

/**
 * The text of an action input that equality is judged on: a string as given, anything else as JSON
 * with object keys sorted and the top-level {@link REASONING_FIELDS} left out. Reads every field
 * once, so it is also the input's validation.
 *
 * @param field - the name used in errors (`step.input`).
 * @throws InvalidInputError naming the field when the input is not serialisable: a cycle, a BigInt,
 *   a getter or Proxy trap that throws, nesting deeper than {@link MAX_INPUT_DEPTH}.
 * @example actionText({ command: 'ls', description: 'List files' }); // '{"command":"ls"}'
 */
export function actionText(input: unknown, field = 'step.input'): string {
  if (typeof input === 'string') return input;
  return serialise(input, field, 0, [], NONE);
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * {@link actionText} of an input object with the top-level fields `without` left out too, as the
 * text of a copy without them would be, but with no copy made (a copy with fields deleted is an
 * object V8 keeps as a hash table: garbage the collector pays for on every editor call).
 *
 * @throws InvalidInputError naming the field, as {@link actionText} does.
 * @example actionTextWithout({ path: '/a.py', new_str: 'x' }, ['new_str']); // '{"path":"/a.py"}'
 */
export function actionTextWithout(record: object, without: readonly string[]): string {
  return serialise(record, 'step.input', 0, [], without);
}

/**
 * Validates every field of an input object but `except` as {@link actionText} reads them, for an
 * input judged by one field only (a shell call's command): its other fields are never judged, but
 * the contract is the same whatever the shape, so a cycle, a BigInt or a throwing getter beside the
 * command is the same typed error as anywhere else.
 *
 * @param field - the name used in errors (`step.input`).
 * @throws InvalidInputError naming the field, as {@link actionText} does.
 * @example checkOtherFields({ command: 'ls', n: 1n }, 'command'); // throws: step.input.n must be JSON-serialisable
 */
export function checkOtherFields(
  record: Record<string, unknown>,
  except: string,
  field = 'step.input',
): void {
  const stack: object[] = [record];
  for (const key of keysOf(record, field)) {
    if (key === except) continue;
    const value = read(record, key, field);
    if (value === null || (typeof value !== 'object' && typeof value !== 'bigint')) continue;
    serialise(value, `${field}.${key}`, 1, stack, undefined);
  }
}
