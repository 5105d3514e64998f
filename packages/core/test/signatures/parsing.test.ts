import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorSignature } from '../../src/entries/breaker.js';
import { decide } from '../../src/entries/iteration.js';
import { checkSafetyGuards } from '../../src/entries/seeds.js';
import { testFindings } from '../../src/iteration/testFindings.js';
import {
  MAX_PARSED_LINE_LENGTH,
  MAX_PARSED_LINES_PER_END,
  parsedLines,
} from '../../src/signatures/parsedLines.js';
import { failingTestNames } from '../../src/signatures/testNames.js';

const MB = 1 << 20;
const fill = (prefix: string, unit: string, size: number) =>
  (prefix + unit.repeat(Math.ceil(size / unit.length))).slice(0, size);

describe('parsedLines', () => {
  it('removes ANSI, blank lines and trailing spaces', () => {
    expect(parsedLines('\u001b[31mFAIL\u001b[39m a.test.ts  \r\n\n   \nok')).toEqual([
      'FAIL a.test.ts',
      'ok',
    ]);
  });

  it('cuts a long line to MAX_PARSED_LINE_LENGTH characters', () => {
    const [line] = parsedLines('x'.repeat(MAX_PARSED_LINE_LENGTH * 3));
    expect(line).toHaveLength(MAX_PARSED_LINE_LENGTH);
  });

  it('keeps the first and last MAX_PARSED_LINES_PER_END non-blank lines of a long output', () => {
    const total = MAX_PARSED_LINES_PER_END * 3;
    const output = Array.from({ length: total }, (_, i) => `line ${i}`).join('\n\n');
    const lines = parsedLines(output);
    expect(lines).toHaveLength(2 * MAX_PARSED_LINES_PER_END);
    expect(lines[0]).toBe('line 0');
    expect(lines[MAX_PARSED_LINES_PER_END - 1]).toBe(`line ${MAX_PARSED_LINES_PER_END - 1}`);
    expect(lines[MAX_PARSED_LINES_PER_END]).toBe(`line ${total - MAX_PARSED_LINES_PER_END}`);
    expect(lines.at(-1)).toBe(`line ${total - 1}`);
  });

  it('equals a plain split for outputs within the bounds (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }), { maxLength: 50 }), (raw) => {
        const output = raw.join('\n');
        const expected = output
          .split('\n')
          .map((line) => line.trimEnd())
          .filter((line) => line.length > 0);
        // ANSI removal is tested above; here outputs without ESC
        fc.pre(!output.includes('\u001b'));
        expect(parsedLines(output)).toEqual(expected);
      }),
    );
  });
});

describe('parsers on adversarial output (these did not finish on the backtracking patterns)', () => {
  it('errorSignature of Error: a.a.a.… (1 MB) is the normalised first line', () => {
    const result = errorSignature(fill('Error: ', 'a.', MB));
    expect(result.kind).toBe('failure');
    expect(result.errorType).toBe('Error');
    expect(result.location).toBeNull();
  });

  it('decide on a failing test output of one 1 MB line retries with feedback', () => {
    const output = fill('FAIL src/a.test.ts\nExpected: ', 'a.', MB);
    const decision = decide({
      task_id: 'T1',
      current_iteration: 1,
      max_iterations: 3,
      test_result: { status: 'fail', output },
      review_result: { status: 'pending', feedback: '' },
    });
    expect(decision.action).toBe('retry');
  });

  it('checkSafetyGuards with three 1 MB outputs of A.A.A.… sees the repeated output', () => {
    const output = fill('TypeError: ', 'A.', MB);
    expect(checkSafetyGuards(0, 0, 0, [output, output, output], undefined, { now: () => 0 })).toEqual({
      safe: false,
      reason: 'Loop detected - same output repeated',
      guard: 'loop_detection',
    });
  });

  it('testFindings on many short lines finds the first location', () => {
    const findings = testFindings(fill('', 'Error: at src/a.ts:12:2\n', MB));
    expect(findings.location).toBe('src/a.ts:12');
  });
});

describe('the linear patterns keep their findings', () => {
  it('reads a file:/// stack frame as the path', () => {
    const result = errorSignature('TypeError: x is undefined\n    at file:///home/u/app/src/a.ts:12:5');
    expect(result.location).toBe('/home/u/app/src/a.ts');
  });

  it('reads a dotted error type', () => {
    expect(errorSignature('pydantic.errors.ValidationError: 1 error').errorType).toBe(
      'pydantic.errors.ValidationError',
    );
    expect(errorSignature('Foo.BarError: nope').errorType).toBe('Foo.BarError');
  });

  it('strips the duration after a list reporter test name only', () => {
    expect(failingTestNames(['× adds two numbers 5ms'])).toEqual(['adds two numbers']);
    expect(failingTestNames(['✕ adds two numbers (5 ms)'])).toEqual(['adds two numbers']);
    expect(failingTestNames(['FAIL src/a.test.ts > add > takes 5ms'])).toEqual([
      'src/a.test.ts > add > takes 5ms',
    ]);
  });

  it('reads go got/want, expect sentences with comments and pytest asserts', () => {
    expect(testFindings('--- FAIL: TestAdd\n    add_test.go:9: got 3, want 4').expected).toBe('4');
    expect(testFindings('--- FAIL: TestAdd\n    add_test.go:9: got 3, want 4').received).toBe('3');
    const sentence = testFindings('AssertionError: expected 3 to be 4 // add(1, 2)');
    expect([sentence.expected, sentence.received]).toEqual(['4', '3']);
    const pytest = testFindings('E       assert 3 == 4   ');
    expect([pytest.expected, pytest.received]).toEqual(['4', '3']);
  });

  it('keeps a URL in the assertion message and drops a trailing comment', () => {
    expect(testFindings('TypeError: see http://x.test/a // why').message).toBe(
      'TypeError: see http://x.test/a',
    );
  });
});
