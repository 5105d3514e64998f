import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/kernel/errors.js';
import { actionText, MAX_INPUT_DEPTH, REASONING_FIELDS } from '../../src/steps/actions/inputText.js';

// The serialisation as it was written before its fields' paths were built only when needed: the oracle.
function reject(path: string, problem: string): never {
  throw new InvalidInputError(`${path} ${problem}`);
}
function read(record: Record<string, unknown>, key: string, path: string): unknown {
  try {
    return record[key];
  } catch (error) {
    return reject(`${path}.${key}`, `cannot be read: ${(error as Error)?.message ?? String(error)}`);
  }
}
function keysOf(record: object, path: string): string[] {
  try {
    return Object.keys(record).sort();
  } catch (error) {
    return reject(path, `cannot be enumerated: ${(error as Error)?.message ?? String(error)}`);
  }
}
function serialise(value: unknown, path: string, depth: number, stack: Set<object>, top: boolean): string {
  if (typeof value === 'bigint') reject(path, `must be JSON-serialisable, got BigInt ${value}n`);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value);
  if (depth >= MAX_INPUT_DEPTH) reject(path, `is nested deeper than ${MAX_INPUT_DEPTH} levels`);
  if (stack.has(value)) reject(path, 'refers to itself (a cycle); it must be JSON-serialisable');
  stack.add(value);
  let text: string;
  if (Array.isArray(value)) {
    const items = value as unknown as Record<string, unknown>;
    const length = read(items, 'length', path) as number;
    const parts: string[] = [];
    for (let i = 0; i < length; i++) {
      parts.push(serialise(read(items, String(i), path), `${path}[${i}]`, depth + 1, stack, false));
    }
    text = `[${parts.join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of keysOf(record, path)) {
      if (top && REASONING_FIELDS.includes(key)) continue;
      const field = read(record, key, path);
      if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
      parts.push(`${JSON.stringify(key)}:${serialise(field, `${path}.${key}`, depth + 1, stack, false)}`);
    }
    text = `{${parts.join(',')}}`;
  }
  stack.delete(value);
  return text;
}
function oracle(input: unknown): string {
  if (typeof input === 'string') return input;
  return serialise(input, 'step.input', 0, new Set(), true);
}

/** The text, or the error's message: both must be the same. */
function outcome(text: (input: unknown) => string, input: unknown): string {
  try {
    return `text ${text(input)}`;
  } catch (error) {
    return `${(error as Error).name} ${(error as Error).message}`;
  }
}

const keys = fc.constantFrom(
  'command',
  'path',
  'new_str',
  'old_str',
  'description',
  'thought',
  'a',
  'b',
  '"q"',
);
const leaf = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 4 }),
  object: fc.dictionary(keys, tie('node'), { maxKeys: 5 }),
})).node;

describe('actionText: the same text and the same errors as the serialisation it replaces', () => {
  it('writes every generated input as the oracle does', () => {
    fc.assert(
      fc.property(value, (input) => {
        expect(outcome(actionText, input)).toBe(outcome(oracle, input));
      }),
      { numRuns: 5_000 },
    );
  });

  it('orders any keys as `sort()` does, few or many (its own sort below 33 keys), and a shared value is no cycle', () => {
    const anyKey = fc.string({ unit: 'binary', maxLength: 4 });
    const wide = fc.dictionary(anyKey, leaf, { maxKeys: 40 });
    fc.assert(
      fc.property(wide, fc.array(wide, { maxLength: 3 }), (input, shared) => {
        expect(outcome(actionText, input)).toBe(outcome(oracle, input));
        const twice = { a: shared, b: [shared, input], c: input };
        expect(outcome(actionText, twice)).toBe(outcome(oracle, twice));
      }),
      { numRuns: 2_000 },
    );
  });

  it('names the same field for a cycle, a BigInt, a throwing getter and too deep a nesting', () => {
    const cycle: Record<string, unknown> = { a: [1, { b: 2 }] };
    ((cycle.a as unknown[])[1] as Record<string, unknown>).c = cycle;
    const getter = {
      a: [
        {},
        Object.defineProperty({}, 'x', {
          enumerable: true,
          get: () => {
            throw new Error('no');
          },
        }),
      ],
    };
    let deep: unknown = 'end';
    for (let i = 0; i < MAX_INPUT_DEPTH + 1; i++) deep = { d: [deep] };
    for (const input of [cycle, { a: { b: [1, 2n] } }, getter, deep, [1, [2, [3n]]]]) {
      const found = outcome(actionText, input);
      expect(found).toMatch(/^InvalidInputError step\.input/);
      expect(found).toBe(outcome(oracle, input));
    }
  });
});
