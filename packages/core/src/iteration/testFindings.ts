import { errorSignature } from '../signatures/errorSignature.js';
import { parsedLines } from '../signatures/parsedLines.js';

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

// Every pattern is applied to one line and runs in time linear in its length: no lazy group is
// followed by an optional suffix, and no two quantifiers compete for the same characters.
const EXPECTED_LINE = /^\s*(?:-\s*)?Expected(?: value| substring| string| pattern)?:\s*(\S(?:.*\S)?)/i;
const RECEIVED_LINE = /^\s*(?:\+\s*)?Received(?: value| string)?:\s*(\S(?:.*\S)?)/i;
const EXPECT_START = /\bexpected /i;
const EXPECT_VERB = / to (?:be|equal|deeply equal|strictly equal|eql|deep equal) /gi;
const PYTEST_ASSERT = /^E\s+(?:AssertionError: )?assert (.+?) == (.+)/;
const GO_WANT = /,\s*want:?\s+(\S(?:.*\S)?)/;
const GO_GOT = /(?:\bgot:?|=)\s*/;
const ASSERTION_MESSAGE = /^\s*(?:E\s+)?((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b.*)/;
const FAILING_FILE = /^\s*FAIL\s+(\S+)$/;
const DEPENDENCY = /node_modules|node:internal|site-packages/;
/** A source path and line; may start only where a path can start, which keeps the search linear. */
const LOCATION =
  /(?<![\w@.\-~/\\])(?:\/\/(?=\/))?((?:[A-Za-z]:[/\\]|\/)?(?:[\w@.\-~]+[/\\])*[\w@\-~][\w@.\-~]*\.(?:[cm]?[jt]sx?|py|go|rs|java|rb|php|cs))(?::|\()(\d+)/;

/**
 * Reads expected/received values, the assertion message, the failing tests and the `file:line`
 * of the failure from the output of vitest, jest, pytest, go test, tsc or node. Runs in time linear
 * in the output's size; each line is read up to `MAX_PARSED_LINE_LENGTH` characters.
 * @example
 * testFindings('FAIL src/auth/login.test.ts\nExpected: token to contain userId\nReceived: undefined');
 * // { tests: ['src/auth/login.test.ts'], expected: 'token to contain userId', received: 'undefined', message: null, location: null }
 */
export function testFindings(output: string): TestFindings {
  const lines = parsedLines(output);
  const [expected, received] = expectation(lines);
  const error = errorSignature(output);
  const failingFile = firstCapture(lines, FAILING_FILE);
  const tests =
    error.failingTests.length > 0 ? error.failingTests : failingFile === undefined ? [] : [failingFile];
  const message = firstCapture(lines, ASSERTION_MESSAGE);
  return {
    tests,
    expected,
    received,
    message: message === undefined ? null : beforeComment(message),
    location: locationOf(lines),
  };
}

function expectation(lines: readonly string[]): [string | null, string | null] {
  const expectedLine = firstCapture(lines, EXPECTED_LINE);
  const receivedLine = firstCapture(lines, RECEIVED_LINE);
  if (expectedLine !== undefined && receivedLine !== undefined) return [expectedLine, receivedLine];
  for (const line of lines) {
    const sentence = expectSentence(line);
    if (sentence) return sentence;
  }
  for (const line of lines) {
    const pytest = PYTEST_ASSERT.exec(line);
    if (pytest?.[1] !== undefined && pytest[2] !== undefined) return [pytest[2].trim(), pytest[1]];
  }
  for (const line of lines) {
    const go = goWant(line);
    if (go) return go;
  }
  return [expectedLine ?? null, receivedLine ?? null];
}

/** `expected X to be Y` → `[Y, X]`; a trailing `// comment` is dropped. */
function expectSentence(line: string): [string, string] | null {
  const start = EXPECT_START.exec(line);
  if (start === null) return null;
  const from = start.index + start[0].length;
  EXPECT_VERB.lastIndex = from + 1;
  const verb = EXPECT_VERB.exec(line);
  if (verb === null) return null;
  const expected = beforeComment(line.slice(verb.index + verb[0].length));
  if (expected === '') return null;
  return [expected, line.slice(from, verb.index)];
}

/** `got X, want Y` (or `= X, want Y`) → `[Y, X]`. */
function goWant(line: string): [string, string] | null {
  const got = GO_GOT.exec(line);
  if (got === null) return null;
  const rest = line.slice(got.index + got[0].length);
  const want = GO_WANT.exec(rest.slice(1));
  if (want?.[1] === undefined) return null;
  return [want[1], rest.slice(0, want.index + 1)];
}

/** The text before a `//` comment that follows whitespace, trimmed. */
function beforeComment(text: string): string {
  const comment = /\s\/\//.exec(text);
  return (comment === null ? text : text.slice(0, comment.index)).trim();
}

function firstCapture(lines: readonly string[], pattern: RegExp): string | undefined {
  for (const line of lines) {
    const value = pattern.exec(line)?.[1];
    if (value !== undefined) return value;
  }
  return undefined;
}

function locationOf(lines: readonly string[]): string | null {
  for (const line of lines) {
    if (DEPENDENCY.test(line)) continue;
    const match = LOCATION.exec(line);
    if (match?.[1] !== undefined) return `${match[1]}:${match[2]}`;
  }
  return null;
}
