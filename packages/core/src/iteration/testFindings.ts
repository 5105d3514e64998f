import { errorSignature } from '../signatures/errorSignature.js';
import { stripAnsi } from '../signatures/normalizeVolatile.js';

/** What one test output says went wrong, for feedback. */
export interface TestFindings {
  /** Failing test names (vitest, jest, pytest, go test); the failing file when only that is known. */
  tests: string[];
  /** The expected value, from `Expected: …`, `expected X to be Y`, `assert X == Y` or `got X, want Y`. */
  expected: string | null;
  /** The value received instead. */
  received: string | null;
  /** The assertion or error message (`AssertionError: …`), when it says more than expected/received. */
  message: string | null;
  /** Where it failed, as `file:line`, outside dependencies. */
  location: string | null;
}

const EXPECTED_LINE = /^\s*[-]?\s*Expected(?: value| substring| string| pattern)?:\s*(.+?)\s*$/im;
const RECEIVED_LINE = /^\s*[+]?\s*Received(?: value| string)?:\s*(.+?)\s*$/im;
const EXPECT_SENTENCE =
  /\bexpected (.+?) to (?:be|equal|deeply equal|strictly equal|eql|deep equal) (.+?)(?:\s+\/\/.*)?$/im;
const PYTEST_ASSERT = /^E\s+(?:AssertionError: )?assert (.+?) == (.+?)\s*$/m;
const GO_WANT = /(?:\bgot:?|=)\s*(.+?),\s*want:?\s+(.+?)\s*$/m;
const ASSERTION_MESSAGE = /^\s*(?:E\s+)?((?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b:?.*?)\s*(?:\/\/.*)?$/m;
const LOCATION =
  /((?:[A-Za-z]:[/\\]|\/)?(?:[\w@.\-~]+[/\\])*[\w@\-~][\w@.\-~]*\.(?:[cm]?[jt]sx?|py|go|rs|java|rb|php|cs))(?::|\()(\d+)/;

/**
 * Reads expected/received values, the assertion message, the failing tests and the `file:line`
 * of the failure from the output of vitest, jest, pytest, go test, tsc or node.
 * @example
 * testFindings('FAIL src/auth/login.test.ts\nExpected: token to contain userId\nReceived: undefined');
 * // { tests: ['src/auth/login.test.ts'], expected: 'token to contain userId', received: 'undefined', message: null, location: null }
 */
export function testFindings(output: string): TestFindings {
  const text = stripAnsi(output);
  const [expected, received] = expectation(text);
  const error = errorSignature(text);
  const failingFile = /^\s*FAIL\s+(\S+)\s*$/m.exec(text)?.[1];
  const tests =
    error.failingTests.length > 0 ? error.failingTests : failingFile === undefined ? [] : [failingFile];
  const message = ASSERTION_MESSAGE.exec(text)?.[1]?.trim() ?? null;
  return { tests, expected, received, message, location: locationOf(text) };
}

function expectation(text: string): [string | null, string | null] {
  const expectedLine = EXPECTED_LINE.exec(text)?.[1];
  const receivedLine = RECEIVED_LINE.exec(text)?.[1];
  if (expectedLine !== undefined && receivedLine !== undefined) return [expectedLine, receivedLine];
  const sentence = EXPECT_SENTENCE.exec(text);
  if (sentence?.[1] !== undefined && sentence[2] !== undefined) return [sentence[2], sentence[1]];
  const pytest = PYTEST_ASSERT.exec(text);
  if (pytest?.[1] !== undefined && pytest[2] !== undefined) return [pytest[2], pytest[1]];
  const go = GO_WANT.exec(text);
  if (go?.[1] !== undefined && go[2] !== undefined) return [go[2], go[1]];
  return [expectedLine ?? null, receivedLine ?? null];
}

function locationOf(text: string): string | null {
  for (const line of text.split(/\r?\n/)) {
    if (/node_modules|node:internal|site-packages/.test(line)) continue;
    const match = LOCATION.exec(line);
    if (match?.[1] !== undefined) return `${match[1]}:${match[2]}`;
  }
  return null;
}
