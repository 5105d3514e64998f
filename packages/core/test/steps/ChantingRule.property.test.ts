import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChantingRule, countSegments } from '../../src/steps/ChantingRule.js';
import type { JudgedEvent } from '../../src/steps/StepRule.js';

/** The segment scan as it was before the separator-count bail-out: the oracle. */
function oracleRepeatedSegment(text: string, repeats: number, share: number) {
  const counts = new Map<string, number>();
  let best = '';
  let bestCount = 0;
  for (const raw of text.split(/[\n.!?]+/)) {
    const segment = raw.trim().replace(/\s+/g, ' ').toLowerCase();
    if (segment.length < 8) continue;
    const count = (counts.get(segment) ?? 0) + 1;
    counts.set(segment, count);
    if (count > bestCount) {
      best = segment;
      bestCount = count;
    }
  }
  return bestCount >= repeats && best.length * bestCount >= share * text.length
    ? { segment: best, count: bestCount }
    : null;
}

function oracleJudge(text: string, repeats: number, share: number) {
  if (text.length < Math.max(256, repeats * 8)) return null;
  const segment = oracleRepeatedSegment(text, repeats, share);
  if (segment !== null) return segment;
  if (text.length < 40 * repeats) return null;
  const tail = text.slice(-40);
  let count = 0;
  for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + 40)) count++;
  return count >= repeats && tail.length * count >= share * text.length ? { segment: tail, count } : null;
}

function event(text: string): JudgedEvent {
  return { kind: 'message', message: { step: 0, key: text, text, evidence: { step: 0 } } };
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
const message = fc.oneof(
  chant,
  fc.array(fc.tuple(sentence, separator), { maxLength: 80 }).map((parts) => parts.flat().join('')),
  fc.string({ unit: 'grapheme', maxLength: 600 }),
);

describe('ChantingRule (property: same verdicts as the unbounded scan)', () => {
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
