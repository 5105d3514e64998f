import { describe, expect, it } from 'vitest';
import { reportedError } from '../../src/breaker/reportedError.js';
import { SameErrorSignal } from '../../src/breaker/SameErrorSignal.js';

describe('reportedError: the errors an agent reports', () => {
  it.each([
    ['ERROR: Database connection failed', 'ERROR: Database connection failed'],
    ['Fatal: Segmentation fault', 'Fatal: Segmentation fault'],
    [
      'FATAL: password authentication failed for user "app"',
      'FATAL: password authentication failed for user "app"',
    ],
    ['Error: Cannot find module "x"', 'Error: Cannot find module "x"'],
    [
      'error: could not compile `app` due to 2 previous errors',
      'error: could not compile `app` due to 2 previous errors',
    ],
    ['error[E0308]: mismatched types', 'error[E0308]: mismatched types'],
    [
      'panic: runtime error: index out of range [3] with length 2',
      'panic: runtime error: index out of range [3] with length 2',
    ],
    ['TypeError: x is not a function', 'TypeError: x is not a function'],
    ['Uncaught ReferenceError: foo is not defined', 'Uncaught ReferenceError: foo is not defined'],
    ['src/a.ts(12,5): error TS2345: Argument of type', 'src/a.ts(<n>): error TS2345: Argument of type'],
    ['main.c:3:5: error: expected ;', 'main.c:<n>: error: expected ;'],
    ['FAIL src/parse.test.ts > parses', 'FAIL src/parse.test.ts > parses'],
    [
      'FAILED tests/test_parse.py::test_limit - assert 1 == 2',
      'FAILED tests/test_parse.py::test_limit - assert 1 == 2',
    ],
    ['--- FAIL: TestLimit (0.00s)', '--- FAIL: TestLimit (<duration>)'],
    ['[2026-11-22T04:01:11.121Z] TypeError: boom', '[<timestamp>] TypeError: boom'],
    ['[ERROR] build failed', '[ERROR] build failed'],
  ])('recognises %j', (output, expected) => {
    const found = reportedError(`some context\n${output}\nmore`);
    expect(found).not.toBeNull();
    expect(found?.replace(/<[a-z]+>/g, '<n>')).toBe(expected.replace(/<[a-z]+>/g, '<n>'));
  });

  it('reads the exception line of a Python traceback', () => {
    const output =
      'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n    main()\nValueError: bad value';
    expect(reportedError(output)).toBe('ValueError: bad value');
  });

  it.each([
    ['+  handleError(error: Error) {'],
    ['-  throw new Error("old message")'],
    ['@@ -1,4 +1,5 @@ class Handler {'],
    ['    12→  throw new Error("x")'],
    ['    12\tconsole.error("Error: y")'],
    ['function handleError(error: Error): void {'],
    ['const onError = (err: TypeError) => {'],
    ['All 12 tests passed, no errors'],
    ['Tests: 0 failed, 12 passed'],
  ])('never takes %j for an error', (line) => {
    expect(reportedError(`diff --git a/x.ts b/x.ts\nindex 1a2b3c4..5d6e7f8 100644\n${line}\n`)).toBeNull();
  });

  it('an agent changing files whose output repeats a diff line is not a same error (a productive run is not stopped)', () => {
    const signal = new SameErrorSignal(5);
    const diff =
      'diff --git a/src/h.ts b/src/h.ts\n@@ -1,3 +1,4 @@\n+  handleError(error: Error) {\n+    log(error);\n';
    for (let iteration = 1; iteration <= 6; iteration++) {
      expect(signal.observe({ iteration, output: `edited 2 files\n${diff}` }).status).toBe('clear');
    }
  });

  it('the same reported error with moving line numbers builds a streak', () => {
    const signal = new SameErrorSignal(3);
    const readings = [1, 2, 3].map((iteration) =>
      signal.observe({
        iteration,
        output: `ERROR: Database connection failed\n    at db.ts:${iteration * 7}`,
      }),
    );
    expect(readings.map((r) => r.streak)).toEqual([1, 2, 3]);
  });
});

/**
 * ralph-claude-code's `tests/unit/test_error_detection.sh` (frankbria/ralph-claude-code), each case
 * re-expressed: the output it writes and whether ralph's loop should count it as an error. Written
 * from the published cases (the text and the expected verdict), not from ralph's patterns.
 */
describe("ralph's error_detection cases", () => {
  it.each([
    [
      'JSON with is_error: false',
      '{\n  "status": "success",\n  "is_error": false,\n  "message": "Operation completed successfully"\n}',
      false,
    ],
    [
      'JSON with error: null',
      '{\n  "status": "ok",\n  "error": null,\n  "error_count": 0,\n  "has_error": false\n}',
      false,
    ],
    [
      'Actual error message',
      'Running build process...\nError: Failed to compile src/main.ts\n  Type error on line 42',
      true,
    ],
    [
      'Exception in log',
      '[2025-12-31 10:30:00] INFO: Starting process\n[2025-12-31 10:30:05] ERROR: Unhandled exception in handler\nException: NullPointerException at line 123',
      true,
    ],
    [
      'Mixed JSON and real error',
      '{\n  "is_error": false,\n  "status": "running"\n}\nProcessing files...\nFatal: Segmentation fault in module X',
      true,
    ],
    ['Normal output no errors', 'Build successful\nAll tests passed\nDeployment complete', false],
    [
      'Error with context (colon)',
      "[BUILD] Compiling...\n[BUILD] Link: error: undefined reference to 'main'\n[BUILD] Failed",
      true,
    ],
    [
      'Multiple JSON error fields',
      '{\n  "error_message": "",\n  "is_error": false,\n  "error_code": 0,\n  "has_errors": false,\n  "error_list": []\n}',
      false,
    ],
    ['Uppercase ERROR message', 'SYSTEM LOG:\nERROR: Database connection failed\nRetrying...', true],
    [
      'Error prefix with descriptive message',
      'Build process started\nError: unable to access file system\nDeployment failed',
      true,
    ],
    [
      'Bare cannot/unable without error context',
      'This feature cannot be enabled in demo mode.\nThe user is unable to access this resource due to permissions.\nConfiguration cannot be modified at runtime.',
      false,
    ],
    [
      'Documentation about errors',
      '# Error Handling Guide\n\nThis document describes how to handle errors in the application.\nWhen an error occurs, the system will log it and continue.',
      false,
    ],
    [
      'Git diff with error class',
      'diff --git a/src/error.ts b/src/error.ts\n+export class ErrorHandler {\n+  handleError(error: Error) {\n+    console.log(error);',
      false,
    ],
  ])('%s', (_name, output, isError) => {
    expect(reportedError(output) !== null).toBe(isError);
  });

  it('a tool or build phase naming itself before the error is one (`collect2: error:`, `clang: fatal error:`)', () => {
    expect(reportedError('collect2: error: ld returned 1 exit status')).toBe(
      'collect2: error: ld returned 1 exit status',
    );
    expect(reportedError('clang: fatal error: no input files')).not.toBeNull();
    expect(reportedError('note: the error: keyword in prose')).toBeNull();
  });
});
