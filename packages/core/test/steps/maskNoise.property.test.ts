import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskNoise } from '../../src/steps/probes/probeKey.js';
import { canonicalSetOrder } from '../../src/steps/probes/setOrder.js';

/** maskNoise as it was before it skipped patterns that cannot match: every pattern, every time. */
const ORACLE: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g, 'uuid#'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/g, 'id#'],
  [/0x[0-9a-fA-F]+/g, '0x#'],
  [/[\d.]*\d{10,}[\d.]*/g, 'n#'],
  [/\bline \d+/g, 'line #'],
  [/:\d+(?::\d+)?\b/g, ':#'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|µs|us|ns)\b/g, '#s'],
  [/\bpid[ =:]?\d+/gi, 'pid #'],
  [/\/tmp\/[^\s'"),\]]+/g, '/tmp/#'],
  [/\btmp[\w-]{4,}/g, 'tmp#'],
  [/\bat 0x#|object at \S+>/g, 'object>'],
];

function oracle(line: string): string {
  let masked = line;
  for (const [pattern, mask] of ORACLE) masked = masked.replace(pattern, mask);
  // The order of a printed set is noise too, after the patterns (setOrder.test.ts).
  return canonicalSetOrder(masked);
}

/** Pieces each pattern matches, near misses, and what the preconditions look for. */
const FRAGMENTS = [
  '123e4567-e89b-12d3-a456-426614174000',
  'DEADBEEF-dead-beef-dead-beefdeadbeef',
  '3f9a2c1d',
  'abcdef1',
  'abcdef12345',
  '0x7ffdeadbeef',
  '0x',
  'at 0x',
  'object at ',
  '<Foo object at 0x7f3a>',
  '1700000000123',
  '1.700000000123',
  '123456789',
  'line 12',
  'line ',
  ':12:5',
  ':',
  '0.5s',
  '12 ms',
  '3 seconds',
  'pid=42',
  'PID 7',
  'pid',
  '/tmp/tmpa8x2/x.py',
  '/tmp/',
  'tmpk3j9_q',
  'tmp',
  '-',
  '#',
  '>',
  ' ',
  '\n',
  '.',
  'a',
  'x',
  '0',
  '7',
];
const textArb = fc
  .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 6 })), { maxLength: 24 })
  .map((parts) => parts.join(''));

describe('maskNoise against the pattern-by-pattern oracle', () => {
  it('gives the same output for texts built from noise fragments', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(maskNoise(text)).toBe(oracle(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('gives the same output for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        expect(maskNoise(text)).toBe(oracle(text));
      }),
      { numRuns: 2000 },
    );
  });
});
