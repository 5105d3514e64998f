import { describe, expect, it } from 'vitest';
import { errorSignature } from '../../src/entries/breaker.js';
import { firstErrorLine } from '../../src/signatures/errorSignature.js';
import { infrastructureKindOf } from '../../src/signatures/infrastructure.js';
import { normalizeVolatile, stripAnsi } from '../../src/signatures/normalizeVolatile.js';
import { outputSignature } from '../../src/signatures/outputSignature.js';
import { failingTestNames } from '../../src/signatures/testNames.js';
import { GO_TEST, JEST, NODE, PYTEST, PYTHON_TRACEBACK, TSC, TSC_PRETTY, VITEST } from './runnerOutputs.js';

describe('normalizeVolatile', () => {
  it('removes colours, timestamps, durations, line numbers, addresses, temp paths and pids', () => {
    expect(
      normalizeVolatile(
        '\u001b[31mError\u001b[39m at /tmp/vitest-x1/a.ts:12:5 (35ms) 0x7ffd12ab pid=999 2024-01-02T10:11:12.123Z line 55',
      ),
    ).toBe('Error at <tmp> (<dur>) <hex> pid=<pid> <time> line <n>');
    expect(normalizeVolatile('src/a.ts(12,5): x at 10:11:12 in 1.5 s')).toBe(
      'src/a.ts(<n>): x at <time> in <dur>',
    );
    expect(normalizeVolatile('/var/folders/ab/T/x.js:3 id 123e4567-e89b-12d3-a456-426614174000')).toBe(
      '<tmp> id <id>',
    );
  });

  it('keeps meaningful numbers', () => {
    expect(normalizeVolatile('expected 3 to be 4')).toBe('expected 3 to be 4');
  });

  it('strips ANSI only with stripAnsi', () => {
    expect(stripAnsi('\u001b[32mPASS\u001b[39m  1ms')).toBe('PASS  1ms');
  });
});

describe('errorSignature on real runner outputs', () => {
  it('vitest', () => {
    expect(errorSignature(VITEST)).toMatchObject({
      kind: 'failure',
      signature: 'FAIL src/auth/login.test.ts > login > returns a token with the user id',
      errorType: 'AssertionError',
      location: 'src/auth/login.test.ts',
      failingTests: ['src/auth/login.test.ts > login > returns a token with the user id'],
    });
  });

  it('jest', () => {
    expect(errorSignature(JEST)).toMatchObject({
      kind: 'failure',
      signature: 'FAIL src/auth/login.test.ts',
      location: 'src/auth/login.test.ts',
      failingTests: ['login › returns a token'],
    });
  });

  it('pytest', () => {
    expect(errorSignature(PYTEST)).toMatchObject({
      kind: 'failure',
      signature: 'E assert 3 == 4',
      errorType: 'AssertionError',
      location: 'tests/test_math.py',
      failingTests: ['tests/test_math.py::test_add'],
    });
  });

  it('python traceback: the exception line, not the header', () => {
    expect(errorSignature(PYTHON_TRACEBACK)).toMatchObject({
      signature: "ValueError: invalid literal for int() with base 10: 'abc'",
      errorType: 'ValueError',
      location: '/home/dev/app/main.py',
    });
  });

  it('go test', () => {
    expect(errorSignature(GO_TEST)).toMatchObject({
      kind: 'failure',
      signature: '--- FAIL: TestAdd (<dur>)',
      errorType: 'FAIL',
      location: 'math_test.go',
      failingTests: ['TestAdd'],
    });
  });

  it('tsc, plain and pretty (coloured) forms give the same type and location', () => {
    expect(errorSignature(TSC)).toMatchObject({
      signature: "src/auth/login.ts(<n>): error TS2322: Type 'string' is not assignable to type 'number'.",
      errorType: 'TS2322',
      location: 'src/auth/login.ts',
    });
    expect(errorSignature(TSC_PRETTY)).toMatchObject({
      signature: "src/auth/login.ts:<n> - error TS2322: Type 'string' is not assignable to type 'number'.",
      errorType: 'TS2322',
      location: 'src/auth/login.ts',
    });
    expect(outputSignature(TSC).key).toBe(outputSignature(TSC_PRETTY).key);
  });

  it('node uncaught exception', () => {
    expect(errorSignature(NODE)).toMatchObject({
      kind: 'failure',
      signature: "TypeError: Cannot read properties of undefined (reading 'port')",
      errorType: 'TypeError',
      location: '/home/dev/app/src/server.js',
    });
  });

  it('the same error on other lines and at other times has the same signature', () => {
    const later = NODE.replace(/17/g, '23').replace('v20.11.0', 'v20.12.0');
    expect(errorSignature(later).signature).toBe(errorSignature(NODE).signature);
    expect(errorSignature(GO_TEST.replace('0.00s', '1.37s')).signature).toBe(
      errorSignature(GO_TEST).signature,
    );
  });

  it('plain Error, Exception, Failed and npm lines', () => {
    expect(errorSignature('Error: ENOENT: no such file').errorType).toBe('Error');
    expect(errorSignature('java.lang.NullPointerException at Foo.java:3').errorType).toBe(
      'java.lang.NullPointerException',
    );
    expect(errorSignature('Build Failed after 3 steps')).toMatchObject({
      kind: 'failure',
      errorType: 'Failed',
    });
    expect(errorSignature('npm ERR! code ELIFECYCLE').kind).toBe('failure');
    expect(errorSignature('all 12 tests passed').kind).toBe('none');
    expect(errorSignature('')).toMatchObject({ kind: 'none', signature: '', firstErrorLine: null });
  });
});

describe('infrastructure errors are classified apart', () => {
  it.each([
    ['Error: 429 Too Many Requests', 'rate_limit'],
    ['anthropic.RateLimitError: rate limit exceeded', 'rate_limit'],
    ['HTTP/1.1 502 Bad Gateway', 'server_error'],
    ['API Error: 529 {"type":"overloaded_error"}', 'server_error'],
    ['Error: status code 500', 'server_error'],
    [
      'FetchError: request to https://api.example.com failed, reason: connect ETIMEDOUT 10.0.0.1:443',
      'timeout',
    ],
    ['Error: Request timed out.', 'timeout'],
    ['Error: read ECONNRESET', 'connection'],
    ['Error: socket hang up', 'connection'],
    ['TypeError: fetch failed', 'connection'],
  ])('%s → %s', (output, kind) => {
    expect(errorSignature(output)).toMatchObject({ kind: 'infrastructure', infrastructure: kind });
    expect(outputSignature(output).key).toBe(`infrastructure:${kind}`);
  });

  it('assertions about status codes and test timeouts are failures', () => {
    expect(errorSignature('AssertionError: expected 503 to be 200').kind).toBe('failure');
    expect(errorSignature('Error: Test timed out in 5000ms.').kind).toBe('failure');
    expect(infrastructureKindOf('expected status 429')).toBeNull();
  });

  it('a test run that fails is a failure even if a reset appears later', () => {
    expect(errorSignature(`${GO_TEST}\nread ECONNRESET`).kind).toBe('failure');
  });
});

describe('failingTestNames and outputSignature', () => {
  it('extracts names for each runner', () => {
    expect(failingTestNames(stripAnsi(GO_TEST).split('\n'))).toEqual(['TestAdd']);
    expect(failingTestNames(['  ✕ adds numbers (5 ms)'])).toEqual(['adds numbers']);
    expect(failingTestNames(['nothing here'])).toEqual([]);
  });

  it('prefers failing tests, then error type and location, then edits, then text', () => {
    expect(outputSignature(PYTEST)).toMatchObject({
      basis: 'tests',
      key: 'tests:tests/test_math.py::test_add',
    });
    expect(outputSignature(NODE)).toMatchObject({
      basis: 'error',
      key: 'error:TypeError@/home/dev/app/src/server.js',
    });
    expect(outputSignature('Error: boom')).toMatchObject({ basis: 'error', key: 'error:Error: boom' });
    expect(outputSignature('Modified src/b.ts\nCreated file src/a.ts\nEdited src/b.ts')).toMatchObject({
      basis: 'edit',
      key: 'edit:edited src/b.ts | wrote src/a.ts',
    });
    expect(outputSignature('  Thinking\n about it 12ms ')).toMatchObject({
      basis: 'text',
      key: 'text:thinking about it <dur>',
    });
  });

  it('sorts a copy of the failing tests so that order does not matter', () => {
    const a = outputSignature('--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)');
    const b = outputSignature('--- FAIL: TestB (0.01s)\n--- FAIL: TestA (0.00s)');
    expect(a.key).toBe(b.key);
    expect(a.error.failingTests).toEqual(['TestA', 'TestB']);
  });
});

describe('firstErrorLine', () => {
  it("is errorSignature's first error line, whatever the output (runner outputs, infrastructure, none)", () => {
    const outputs = [
      VITEST,
      JEST,
      PYTEST,
      GO_TEST,
      TSC,
      TSC_PRETTY,
      NODE,
      PYTHON_TRACEBACK,
      'Error: 429 Too Many Requests',
      'all good\n\n',
      '',
      'Traceback (most recent call last):\nFAIL\n  KeyError: 3',
    ];
    for (const output of outputs) expect(firstErrorLine(output)).toBe(errorSignature(output).firstErrorLine);
    expect(firstErrorLine('ok\n  TypeError: x is undefined  ')).toBe('TypeError: x is undefined');
    expect(firstErrorLine('ok')).toBeNull();
  });
});
