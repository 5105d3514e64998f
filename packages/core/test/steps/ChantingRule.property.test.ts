import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChantingRule, countSegments } from '../../src/steps/rules/ChantingRule.js';
import type { JudgedEvent } from '../../src/steps/rules/StepRule.js';

/**
 * The rule for text without structure (no fences, markup or markdown markers: one run), written
 * plainly with `split` and regular expressions: the oracle.
 */
function oracleRepeatedSegments(text: string, repeats: number, share: number, prose: number) {
  const counts = new Map<string, number>();
  let best = '';
  let bestCount = 0;
  let covered = 0;
  for (const raw of text.split(/[\n.!?]/)) {
    const segment = raw.trim().replace(/\s+/g, ' ').toLowerCase();
    if (segment.length < 8 || !/\p{L}/u.test(segment)) continue;
    const count = (counts.get(segment) ?? 0) + 1;
    counts.set(segment, count);
    // Every occurrence of a segment said `repeats` times or more is chant.
    if (count === repeats) covered += raw.length * repeats;
    if (count > repeats) covered += raw.length;
    if (count > bestCount) {
      best = segment;
      bestCount = count;
    }
  }
  return bestCount >= repeats && covered >= share * prose ? { segment: best, count: bestCount } : null;
}

function oracleJudge(text: string, repeats: number, share: number) {
  const least = Math.max(256, repeats * 8);
  if (text.length < least) return null;
  // Prose: the lines with a letter, each with its line break.
  const lines = text.split('\n');
  let prose = 0;
  lines.forEach((line, i) => {
    if (/\p{L}/u.test(line)) prose += line.length + (i < lines.length - 1 ? 1 : 0);
  });
  if (prose < least) return null;
  const segments = text.split(/[\n.!?]+/).length >= repeats;
  const segment = segments ? oracleRepeatedSegments(text, repeats, share, prose) : null;
  if (segment !== null) return segment;
  // The tail: the last 40 characters before the trailing separators.
  const end = text.replace(/[\n.!?]+$/, '').length;
  if (end < 40 * repeats) return null;
  const tail = text.slice(end - 40, end);
  if (!/\p{L}/u.test(tail)) return null;
  const count = text.slice(0, end).split(tail).length - 1;
  return count >= repeats && 40 * count >= share * prose ? { segment: tail, count } : null;
}

function event(text: string): JudgedEvent {
  return { kind: 'message', message: { step: 0, key: text, blank: false, text, evidence: { step: 0 } } };
}

/** Messages built from a few sentences and separators, so that both chanting and near misses occur. */
const sentence = fc.constantFrom(
  'I will fix it',
  'i  will FIX it',
  'Let me run the tests',
  'ΑΣ',
  'İİİİ',
  'ok',
  '   ',
  'The build passes now',
);
const separator = fc.constantFrom('.', '\n', '!', '?', '. ', '...\n', ' ', '');
/** One long sentence said `times` times, at the boundary of `repeats` and of the separator count. */
const chant = fc
  .tuple(
    fc.constantFrom(
      'I will now fix the failing test in the parser',
      'Running THE  tests again to see the result',
    ),
    fc.constantFrom('.', '\n', '. ', '!?'),
    fc.integer({ min: 1, max: 14 }),
    fc.constantFrom('', 'x', ' tail without a break'),
  )
  .map(([said, separator, times, tail]) => `${`${said}${separator}`.repeat(times - 1)}${said}${tail}`);
/** A block of distinct lines said `times` times: each line covers only part of the message. */
const block = fc
  .tuple(
    fc.uniqueArray(
      fc.constantFrom(
        'I will not output any text',
        '  I will just end the turn',
        'I am done',
        "  I will wait for the user's next command",
        'Let me run the tests',
      ),
      { minLength: 2, maxLength: 5 },
    ),
    fc.constantFrom('\n', '. ', '.\n'),
    fc.integer({ min: 1, max: 14 }),
    fc.constantFrom('', ' and a different ending without a break'),
  )
  .map(([lines, separator, times, tail]) => `${lines.join(separator)}${separator}`.repeat(times) + tail);
const message = fc.oneof(
  chant,
  block,
  fc.array(fc.tuple(sentence, separator), { maxLength: 80 }).map((parts) => parts.flat().join('')),
  // Random text, without the characters of structure (fences, markup, markdown markers, list items).
  fc.string({ unit: 'grapheme', maxLength: 600 }).filter((text) => !/[`~|#>*+-]|\d\./.test(text)),
);

describe('ChantingRule (property: same verdicts as a plain scan of text without structure)', () => {
  it('hits exactly when the oracle hits, with the same segment and count', () => {
    fc.assert(
      fc.property(
        message,
        fc.integer({ min: 2, max: 12 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        (text, repeats, share) => {
          const expected = oracleJudge(text, repeats, share);
          const hit = new ChantingRule(repeats, share).judge(event(text));
          expect(hit === null ? null : hit.repeats).toBe(expected === null ? null : expected.count);
          if (hit !== null && expected !== null) expect(hit.summary).toContain(expected.segment.slice(0, 20));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('countSegments equals the split length, capped at the limit', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '.', '\n', '!', '?', 'b') }),
        fc.integer({ min: 1, max: 30 }),
        (text, limit) => {
          expect(countSegments(text, limit)).toBe(
            Math.min(text.split(/[\n.!?]+/).length, Math.max(limit, 1)),
          );
        },
      ),
    );
  });
});
