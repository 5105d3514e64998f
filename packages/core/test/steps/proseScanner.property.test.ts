import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProseScanner, type ProseSink, segmentHash } from '../../src/steps/rules/chantText.js';

/** Every segment the scanner reports over `text`, line by line as `ChantingRule` scans a message. */
function segmentsOf(text: string, hashes = true): Array<{ from: number; to: number; hash: number }> {
  const found: Array<{ from: number; to: number; hash: number }> = [];
  const sink: ProseSink = {
    segment: (_text, from, to, hash) => found.push({ from, to, hash }),
    structure: () => {},
  };
  const scanner = new ProseScanner();
  scanner.hashes = hashes;
  let from = 0;
  while (from <= text.length) {
    const newline = text.indexOf('\n', from);
    const to = newline === -1 ? text.length : newline;
    scanner.scanLine(text, from, to, sink, true, newline !== -1);
    from = to + 1;
  }
  return found;
}

/** Characters that steer the scan: breaks, fences, markup, markers, spaces of every kind, case, wide letters. */
const piece = fc.constantFrom(
  'Fix it',
  'fix  IT',
  ' now',
  '. ',
  '!',
  '?',
  '\n',
  '```',
  '~~~',
  '`x`',
  '| a |',
  '# Title',
  '> quote',
  '- item ',
  '* ',
  '1. step',
  '\t',
  '\r',
  '\u000b',
  '\u00a0',
  'É',
  'Ünïcode ',
  'ß',
  '\u2003',
  '12345678',
  '________',
  'abc',
  'x',
);

describe('ProseScanner: each segment hashed in the scan', () => {
  it('reports for every segment the hash segmentHash gives it', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.string({ maxLength: 40 }), (pieces, noise) => {
        const text = pieces.join('') + noise;
        for (const { from, to, hash } of segmentsOf(text)) expect(hash).toBe(segmentHash(text, from, to));
      }),
      { numRuns: 2000 },
    );
  });

  it('reports the same segments, each with -1, when hashing is off', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        const hashed = segmentsOf(text);
        const plain = segmentsOf(text, false);
        expect(plain.map(({ from, to }) => [from, to])).toEqual(hashed.map(({ from, to }) => [from, to]));
        expect(plain.every(({ hash }) => hash === -1)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('hashes a chanted sentence alike whatever its spacing and case, and a short one as -1', () => {
    const text = 'I will fix it now.  i WILL fix   it now. Ok.';
    const [first, second, third] = segmentsOf(text);
    expect(first?.hash).not.toBe(-1);
    expect(second?.hash).toBe(first?.hash);
    expect(third?.hash).toBe(-1);
  });
});
