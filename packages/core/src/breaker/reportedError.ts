import { normalizeVolatile } from '../signatures/normalizeVolatile.js';
import { parsedLines } from '../signatures/parsedLines.js';

/**
 * Lines that are not the agent reporting anything: a diff the agent printed (`+`/`-` lines, hunk
 * and file headers) or a file it viewed (`  12→…`, `  12\t…`, `12: …`, `12| …`). Errors are never read from them.
 */
const ECHOED_LINE = /^(?:[+-](?!-- FAIL)|@@ |diff --git |index [0-9a-f]+\.\.|\s*\d+(?:→|\t|\s*[|:]\s))/;

/**
 * The forms of a reported error, each anchored at the start of the (trimmed) line so that a word
 * inside code (`handleError(error: Error)`) is never one:
 * - `ERROR:`, `Error:`, `error:`, `error[E0308]:`, `Fatal:`, `FATAL:`/`FATAL `, `panic:`;
 * - a typed error or exception with a message or alone (`TypeError: x`, `java.lang.IllegalStateException`,
 *   `Uncaught ReferenceError: …`), the last line of a traceback;
 * - a compiler diagnostic (`src/a.ts(3,5): error TS2345: …`, `a.c:3:5: error: …`, `a.go:3:5: undefined: x`);
 * - a program or build phase naming itself before the error (`ld: error: …`, `collect2: error: …`,
 *   `Link: error: …`, `clang: fatal error: …`);
 * - a test runner's failure (`FAIL src/a.test.ts`, `FAILED tests/a.py::t`, `--- FAIL: TestX`,
 *   `× a > b`, `E   assert 1 == 2`, `AssertionError`).
 */
const REPORTED_ERROR = new RegExp(
  [
    /^(?:ERROR|Error|error)(?:\[[\w-]+\])?:\s*\S/.source,
    /^(?:Fatal|FATAL)(?::|\s)\s*\S/.source,
    /^panic:/.source,
    /^\[(?:ERROR|FATAL|error|fatal)\]/.source,
    /^(?:Uncaught\s+)?(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)(?::\s*\S|\s*$)/.source,
    /^\S+?\.\w{1,5}(?::\d+(?::\d+)?|\(\d+(?:,\d+)?\)):?\s+(?:fatal )?error\b/.source,
    /^[\w.+-]+:\s+(?:fatal\s+)?error:\s*\S/.source,
    /^(?:FAIL|FAILED)\s+\S/.source,
    /^--- FAIL:/.source,
    /^[×✗✕]\s+\S/.source,
    /^E\s{2,}\S/.source,
  ].join('|'),
);

/** A log prefix before the message: bracketed timestamps or tags, an ISO time. */
const LOG_PREFIX = /^(?:\[[^\]]{1,40}\]\s*|\d{4}-\d\d-\d\d[T ][\d:.,]+Z?\s+)+/;

function isReported(line: string): boolean {
  return REPORTED_ERROR.test(line) || REPORTED_ERROR.test(line.replace(LOG_PREFIX, ''));
}

/** A traceback header: the error is its last line (Python) or its first (node prints it first). */
const TRACEBACK = /^Traceback \(most recent call last\):/;

/**
 * The first error the agent's output reports, normalised (line numbers, timestamps, ids removed),
 * or `null`. Read only from what the agent reports — its result, test and build output — never from
 * a diff or a file view it echoed; a type annotation or a word in code is never an error.
 * @example
 * reportedError('ERROR: Database connection failed'); // 'ERROR: Database connection failed'
 * reportedError('+  handleError(error: Error) {'); // null
 */
export function reportedError(output: string): string | null {
  const lines = parsedLines(output)
    .map((line) => line.trim())
    .filter((line) => !ECHOED_LINE.test(line));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (TRACEBACK.test(line)) {
      // the exception line closes the traceback: the first non-indented typed error after it
      const exception = lines.slice(i + 1).find((l) => isReported(l) && !l.startsWith('File '));
      if (exception !== undefined) return normalizeVolatile(exception);
      continue;
    }
    if (isReported(line)) return normalizeVolatile(line);
  }
  return null;
}
