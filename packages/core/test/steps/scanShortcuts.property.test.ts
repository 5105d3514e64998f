import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_LINE, ERROR_LINE_HINT, SKIPPED_LINE } from '../../src/signatures/errorSignature.js';
import { shellSegments } from '../../src/steps/actions/shellSegments.js';
import { fingerprintedText } from '../../src/steps/keys/fingerprint.js';
import { keyLines, maskNoise, SUMMARY_LINE } from '../../src/steps/probes/probeKey.js';

/** `keyLines` as it was written first: every line of the text tested, none skipped. */
function keyLinesOracle(output: string): string {
  const text = fingerprintedText(output);
  const found: string[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, Math.min(end, start + 960)).trim();
    if (line !== '' && (SUMMARY_LINE.test(line) || (ERROR_LINE.test(line) && !SKIPPED_LINE.test(line)))) {
      found.push(maskNoise(line.slice(0, 240)));
      if (found.length > 8) found.shift();
    }
    start = end + 1;
  }
  return found.join('\n');
}

/** `shellSegments` as it was written first: each segment built a character at a time. */
function shellSegmentsOracle(text: string): string[] {
  const segments: string[] = [];
  const push = (segment: string) => {
    if (segment.trim() !== '') segments.push(segment.trim());
  };
  let current = '';
  let quote = '';
  let heredoc = '';
  for (const line of text.split('\n')) {
    if (heredoc !== '') {
      if (line.trim() === heredoc) heredoc = '';
      continue;
    }
    const marker = /<<-?\s*['"]?([A-Za-z_][\w]*)['"]?/.exec(line);
    if (marker !== null) heredoc = marker[1] as string;
    for (let i = 0; i < line.length; i++) {
      const char = line[i] as string;
      if (quote !== '') {
        if (char === quote) quote = '';
        current += char;
        continue;
      }
      if (char === '"' || char === "'") {
        quote = char;
        current += char;
        continue;
      }
      const next = line[i + 1];
      if (char === ';' || (char === '&' && next === '&') || char === '|') {
        push(current);
        current = '';
        if (next === '&' || next === '|') i++;
        continue;
      }
      current += char;
    }
    if (quote === '') {
      push(current);
      current = '';
    } else current += '\n';
  }
  push(current);
  return segments;
}

/** Pieces of key lines and of what is around them (each form of a key line, near misses, breaks). */
const OUTPUT_FRAGMENTS = [
  'KeyError: 1',
  'foo.BarError',
  'Error',
  'Error:',
  'Exception',
  'ValueException in x',
  'FAIL',
  'FAILED',
  'Failed',
  'failed',
  'panic: x',
  'error:',
  'error TS2304',
  'error[E0308]:',
  'npm ERR!',
  'E   assert 1 == 2',
  'E  x',
  'E\t\tx',
  '3 failed, 9 passed',
  '1 error',
  '2 failures',
  'Traceback (most recent call last):',
  '=====',
  '⎯⎯⎯',
  'at 0x7f3a',
  'line 12',
  'a.py:12',
  '  ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  'x',
  'e',
  'E',
];
const outputArb = fc
  .array(fc.oneof(fc.constantFrom(...OUTPUT_FRAGMENTS), fc.string({ maxLength: 6 })), { maxLength: 40 })
  .map((parts) => parts.join(''));

/** Pieces of shell command lines (separators, quotes, heredocs). */
const SHELL_FRAGMENTS = [
  'cd /repo',
  ' && ',
  '&&',
  ' || ',
  '||',
  '|',
  '|&',
  ';',
  ';&',
  ' ',
  '\n',
  "'",
  '"',
  "'a && b'",
  '"x | y"',
  "cat <<'EOF' > f.py",
  'cat << EOF',
  'EOF',
  'python x.py',
  'echo hi',
  '&',
];
const shellArb = fc
  .array(fc.oneof(fc.constantFrom(...SHELL_FRAGMENTS), fc.string({ maxLength: 4 })), { maxLength: 30 })
  .map((parts) => parts.join(''));

describe('ERROR_LINE_HINT is in every line that ERROR_LINE matches', () => {
  it('on lines built from key-line pieces and on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(outputArb, fc.string({ maxLength: 80 })), (text) => {
        for (const line of text.split('\n')) {
          if (ERROR_LINE.test(line.trim())) expect(ERROR_LINE_HINT.test(line)).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe('keyLines tests only the lines with a hint, and finds what testing every line finds', () => {
  it('on outputs built from key-line pieces', () => {
    fc.assert(
      fc.property(outputArb, (output) => {
        expect(keyLines(output)).toBe(keyLinesOracle(output));
      }),
      { numRuns: 5000 },
    );
  });

  it('on long outputs, read as their head and tail', () => {
    fc.assert(
      fc.property(outputArb, fc.nat(7000), outputArb, (before, padding, after) => {
        const output = `${before}\n${'x'.repeat(padding)}\n${after}`;
        expect(keyLines(output)).toBe(keyLinesOracle(output));
      }),
      { numRuns: 500 },
    );
  });

  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (output) => {
        expect(keyLines(output)).toBe(keyLinesOracle(output));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('shellSegments cuts segments out, and gives what building them a character at a time gives', () => {
  it('on command lines built from separators, quotes and heredocs', () => {
    fc.assert(
      fc.property(shellArb, (text) => {
        expect(shellSegments(text)).toEqual(shellSegmentsOracle(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('stops at its limit with the first segments it would give (exempt61)', () => {
    fc.assert(
      fc.property(shellArb, fc.integer({ min: 1, max: 4 }), (text, limit) => {
        expect(shellSegments(text, limit)).toEqual(shellSegmentsOracle(text).slice(0, limit));
      }),
      { numRuns: 2000 },
    );
  });

  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        expect(shellSegments(text)).toEqual(shellSegmentsOracle(text));
      }),
      { numRuns: 3000 },
    );
  });
});
