import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeVolatile } from '../../src/signatures/normalizeVolatile.js';
import { GO_TEST, JEST, NODE, PYTEST, PYTHON_TRACEBACK, TSC, TSC_PRETTY, VITEST } from './runnerOutputs.js';

/** The normaliser as it was before it skipped patterns that cannot match: every pattern, every time. */
const ORACLE_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI sequences start with the ESC control character
  [/\u001b\[[0-9;?]*[ -/]*[@-~]/g, ''],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>'],
  [/(?:\/private)?\/var\/folders\/[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  [/\/tmp\/[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  [/[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi, '<hex>'],
  [/\b(pid|process)([\s:=#]+)\d+/gi, '$1$2<pid>'],
  [/\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?)\b/g, '<dur>'],
  [/(\.[A-Za-z][\w]*):\d+(?::\d+)?/g, '$1:<n>'],
  [/(\.[A-Za-z][\w]*)\(\d+,\d+\)/g, '$1(<n>)'],
  [/\b(line)\s+\d+/gi, '$1 <n>'],
];

function oracle(text: string): string {
  let result = text;
  for (const [pattern, replacement] of ORACLE_PATTERNS) result = result.replace(pattern, replacement);
  return result.replace(/\s+/g, ' ').trim();
}

/** Pieces that each pattern matches, near-misses, and the characters its precondition looks for. */
const FRAGMENTS = [
  '\u001b[31m',
  '\u001b[',
  '\u001b',
  '[0m',
  '2024-01-02T10:11:12.345Z',
  '2024-01-02 10:11',
  '10:11:12',
  '9:05:07,5',
  '/private/var/folders/ab/T/x.js:3:4',
  '/var/folders/',
  '/tmp/x1/a.ts:12:5',
  '/tmp/',
  'C:\\Users\\me\\AppData\\Local\\Temp\\x.js:3',
  '\\AppData\\Local\\Temp\\',
  '123e4567-e89b-12d3-a456-426614174000',
  'deadbeef-dead-beef-dead-beefdeadbeef',
  '0x7ffdeadbeef',
  '0X1F',
  '0x',
  'abcdef123456',
  'ABCDEF1234567890',
  'pid 4242',
  'PROCESS#12',
  'pid:',
  '12ms',
  '1.5 s',
  '3 seconds',
  '2min',
  'µs',
  'abcdef12345',
  '3f9a2c1d',
  'ABCDEF',
  '  ',
  ' \t',
  'a.ts:12:5',
  '.py:40',
  'a.ts(12,5)',
  '(1,2)',
  'line 12',
  'LINE  7',
  'line',
  ':',
  '-',
  '(',
  ',',
  '.',
  'x',
  'Error',
  ' ',
  '\n',
  '\t',
  '7',
  '0',
  'é',
  "'",
  '"',
  ')',
];
const textArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(...FRAGMENTS),
      fc.string({ maxLength: 6 }),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    ),
    {
      maxLength: 24,
    },
  )
  .map((parts) => parts.join(''));

describe('normalizeVolatile against the pass-by-pass oracle', () => {
  it('gives the same output for texts built from volatile fragments', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(normalizeVolatile(text)).toBe(oracle(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('gives the same output for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        expect(normalizeVolatile(text)).toBe(oracle(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same output on the recorded runner outputs', () => {
    for (const output of [GO_TEST, JEST, NODE, PYTEST, PYTHON_TRACEBACK, TSC, TSC_PRETTY, VITEST]) {
      expect(normalizeVolatile(output)).toBe(oracle(output));
    }
  });
});
