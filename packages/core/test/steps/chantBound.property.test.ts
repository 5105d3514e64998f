import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANT_TAIL, codeFences, lastSegmentEnd, mayChant } from '../../src/steps/rules/chantBound.js';
import { ProseScanner, type ProseSink } from '../../src/steps/rules/chantText.js';

/** What the chanting rule's scan of a whole message sees: its segments and each line's start in code. */
function scanOf(text: string): {
  segments: Array<{ to: number; hash: number }>;
  lineStarts: Array<{ at: number; inCode: boolean }>;
} {
  const segments: Array<{ to: number; hash: number }> = [];
  const lineStarts: Array<{ at: number; inCode: boolean }> = [];
  const sink: ProseSink = {
    segment: (_text, _from, to, hash) => segments.push({ to, hash }),
    structure: () => {},
  };
  const scanner = new ProseScanner();
  let from = 0;
  while (from <= text.length) {
    lineStarts.push({ at: from, inCode: scanner.inCode });
    const newline = text.indexOf('\n', from);
    const to = newline === -1 ? text.length : newline;
    scanner.scanLine(text, from, to, sink, true, newline !== -1);
    from = to + 1;
  }
  return { segments, lineStarts };
}

/** The most any segment occurs in the message (runs ignored), and how often its last prose's tail occurs before its end. */
function repeatsOf(text: string): { segment: number; tail: number } {
  // A tail without a letter never chants: counted as 0.
  const { segments } = scanOf(text);
  const counts = new Map<number, number>();
  let segment = 0;
  for (const { hash } of segments) {
    if (hash === -1) continue;
    const count = (counts.get(hash) ?? 0) + 1;
    counts.set(hash, count);
    segment = Math.max(segment, count);
  }
  const end = segments.at(-1)?.to ?? -1;
  let tail = 0;
  const said = end >= CHANT_TAIL ? text.slice(end - CHANT_TAIL, end) : '';
  if (/\p{L}/u.test(said)) {
    for (
      let at = text.indexOf(said);
      at !== -1 && at + CHANT_TAIL <= end;
      at = text.indexOf(said, at + CHANT_TAIL)
    )
      tail++;
  }
  return { segment, tail };
}

/** Pieces that steer the scan (breaks, fences, markup, spaces of every kind, case, wide letters) and sentences said again. */
const piece = fc.constantFrom(
  'I will fix the test',
  'i  WILL fix the TEST',
  'I will fix the test\u00a0',
  'I will fix the \u212aelvin test',
  'I will fix the Kelvin test',
  'Let me run it',
  'ok',
  '. ',
  '.',
  '!',
  '?',
  '...',
  '\n',
  '\n\n',
  '```',
  '````',
  '~~~',
  '`x`',
  '``y``',
  '``',
  '~',
  '| a |',
  '# Title',
  '> quote ```',
  '  > ```',
  '- item ',
  '\t',
  '\r',
  '\u00a0',
  'İ',
  '\u2003',
  'abcdefghij',
  'x',
);
const text = fc
  .tuple(
    fc.array(piece, { maxLength: 40 }),
    fc.integer({ min: 1, max: 12 }),
    fc.array(piece, { maxLength: 6 }),
  )
  .map(([block, times, after]) => block.join('').repeat(times) + after.join(''));

describe('chantBound: the chanting scan ruled out without scanning', () => {
  it('codeFences gives every line start the scan reads in code or not', () => {
    fc.assert(
      fc.property(text, (message) => {
        const fences = codeFences(message);
        for (const { at, inCode } of scanOf(message).lineStarts) {
          expect(fences.filter((fence) => fence < at).length % 2 === 1).toBe(inCode);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('lastSegmentEnd is where the scan reports its last segment', () => {
    fc.assert(
      fc.property(text, (message) => {
        const expected = scanOf(message).segments.at(-1)?.to ?? -1;
        expect(lastSegmentEnd(message, codeFences(message))).toBe(expected);
      }),
      { numRuns: 1500 },
    );
  });

  it('says a message cannot chant only when no segment and no tail occurs that often', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 2, max: 12 }), fc.boolean(), (message, repeats, segments) => {
        if (mayChant(message, repeats, segments)) return;
        const found = repeatsOf(message);
        if (segments) expect(found.segment).toBeLessThan(repeats);
        const end = scanOf(message).segments.at(-1)?.to ?? -1;
        if (end >= CHANT_TAIL * repeats) expect(found.tail).toBeLessThan(repeats);
      }),
      { numRuns: 3000 },
    );
  });

  it('rules out a long reply of distinct sentences, not a chant nor text said without breaks', () => {
    const reply = Array.from(
      { length: 30 },
      (_, i) => `Step ${i}: the parser reads field ${i * 7} now.`,
    ).join('\n');
    expect(mayChant(reply, 10, true)).toBe(false);
    expect(mayChant('I will fix the test now.\n'.repeat(12), 10, true)).toBe(true);
    expect(mayChant('I will fix the test now and then run it '.repeat(12), 10, false)).toBe(true);
    // The same sentences inside a code block are never prose.
    expect(mayChant(`Here:\n\`\`\`\n${'I will fix the test now.\n'.repeat(12)}\`\`\`\nDone.`, 10, true)).toBe(
      false,
    );
  });
});
