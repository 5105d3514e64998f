import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskTyped, sameMasked } from '../../src/steps/probes/probeKey.js';

/** Pieces that steer the masking: words (typed or not), digits glued to them, separators, `~` itself. */
const piece = fc.constantFrom(
  'foo',
  'bar',
  'foo1',
  '_tmp',
  'ab',
  'x',
  '9',
  '12',
  '9foo',
  '9bar',
  '7foo1',
  'foo_bar',
  'Result',
  '~',
  ' ',
  '\n',
  ':',
  '.',
  '=',
  '(',
  ')',
  'é',
  '"',
);
const typedWord = fc.constantFrom('foo', 'bar', 'foo1', '_tmp', 'foo_bar', 'Result', 'ab', 'tmp');
/** Two keys that share a start and an end, as two runs of one probe do. */
const keys = fc
  .tuple(
    fc.array(piece, { maxLength: 12 }),
    fc.array(piece, { maxLength: 6 }),
    fc.array(piece, { maxLength: 6 }),
    fc.array(piece, { maxLength: 12 }),
  )
  .map(([start, middleA, middleB, end]) => [
    [...start, ...middleA, ...end].join(''),
    [...start, ...middleB, ...end].join(''),
  ]);

describe('sameMasked: equal masked keys, masking only where they differ', () => {
  it('answers as masking both keys whole and comparing them does', () => {
    fc.assert(
      fc.property(keys, fc.uniqueArray(typedWord, { maxLength: 5 }), ([a, b], words) => {
        const typed = new Set(words);
        expect(sameMasked(a as string, b as string, typed)).toBe(
          maskTyped(a as string, typed) === maskTyped(b as string, typed),
        );
      }),
      { numRuns: 20_000 },
    );
  });

  it('answers as the oracle on unrelated texts', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.uniqueArray(fc.string({ minLength: 3 }), { maxLength: 4 }),
        (a, b, words) => {
          const typed = new Set(words);
          expect(sameMasked(a, b, typed)).toBe(maskTyped(a, typed) === maskTyped(b, typed));
        },
      ),
    );
  });

  it('masks a word from its first letter, as the pattern does', () => {
    const typed = new Set(['foo1', 'foo2']);
    expect(sameMasked('got x.foo1: 3', 'got x.foo2: 3', typed)).toBe(true);
    expect(sameMasked('got afoo1: 3', 'got afoo2: 3', typed)).toBe(false);
    expect(sameMasked('got ~: 3', 'got foo1: 3', typed)).toBe(true);
    // A word starts at its first letter: digits before it stay, the word is masked.
    expect(sameMasked('got 9foo1: 3', 'got 9foo2: 3', typed)).toBe(true);
    expect(sameMasked('got 9foo1: 3', 'got 8foo2: 3', typed)).toBe(false);
  });
});
