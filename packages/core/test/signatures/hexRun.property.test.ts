import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasHexRun, longestHexRun } from '../../src/signatures/hexRun.js';

describe('longestHexRun', () => {
  it('counts the longest run of hex digits, either case, at the start, inside or at the end', () => {
    expect(longestHexRun('')).toBe(0);
    expect(longestHexRun('xyz')).toBe(0);
    expect(longestHexRun('3f9A2c1D')).toBe(8);
    expect(longestHexRun('commit 3f9a2c1d, pid 12')).toBe(8);
    expect(longestHexRun('ab-cdef01 ff')).toBe(6);
  });

  it('reaches a length exactly when hasHexRun finds a run of it', () => {
    const textArb = fc
      .array(fc.constantFrom('a', 'F', '0', '9', 'g', 'x', '-', ' ', 'é', 'deadbeef', '12345'), {
        maxLength: 30,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.oneof(textArb, fc.string({ maxLength: 40 })),
        fc.integer({ min: 1, max: 16 }),
        (text, n) => {
          expect(longestHexRun(text) >= n).toBe(hasHexRun(text, n));
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('hasHexRun reading only some characters', () => {
  it('finds a run wherever it starts and ends against the positions it reads', () => {
    for (let length = 1; length <= 13; length++) {
      for (let size = length; size <= length + 2; size++) {
        for (let at = 0; at + size <= 3 * length + 2; at++) {
          const text = `${'x'.repeat(at)}${'a'.repeat(size)}${'x'.repeat(3)}`;
          expect(hasHexRun(text, length)).toBe(true);
          expect(hasHexRun(text, size + 1)).toBe(false);
        }
      }
    }
  });

  it('is false for an empty text and true for any other text at length 0, as a run of none', () => {
    expect(hasHexRun('', 0)).toBe(false);
    expect(hasHexRun('x', 0)).toBe(true);
  });
});

describe('hasHexRun and longestHexRun against a regular expression', () => {
  it('find the runs `[0-9a-fA-F]` finds, control and non-ASCII characters never part of one', () => {
    const textArb = fc
      .array(
        fc.oneof(
          fc.constantFrom('a', 'F', '0', '9', 'g', '\u0010', '\u0019', '@', '`', 'é', 'ａ'),
          fc.string(),
        ),
        {
          maxLength: 30,
        },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(textArb, fc.integer({ min: 1, max: 16 }), (text, n) => {
        expect(hasHexRun(text, n)).toBe(new RegExp(`[0-9a-fA-F]{${n}}`).test(text));
        const longest = Math.max(0, ...(text.match(/[0-9a-fA-F]+/g) ?? []).map((run) => run.length));
        expect(longestHexRun(text)).toBe(longest);
      }),
      { numRuns: 5000 },
    );
  });
});
