import { type InfrastructureKind, infrastructureKindOf } from './infrastructure.js';
import { normalizeVolatile } from './normalizeVolatile.js';
import { parsedLines } from './parsedLines.js';
import { failingTestNames } from './testNames.js';

/**
 * What {@link errorSignature} found in one output.
 * - `failure`: the output reports an error or failing tests; count it.
 * - `infrastructure`: a rate limit, HTTP 429/5xx, network timeout or connection reset; wait and retry
 *   instead of counting it as a failure.
 * - `none`: no error.
 */
export type ErrorKind = 'failure' | 'infrastructure' | 'none';

/** The normalised identity of the error in one output. */
export interface ErrorSignature {
  /** Which family the output belongs to. */
  kind: ErrorKind;
  /**
   * Equal for two outputs that report the same error: the first error line with volatile parts
   * normalised (`failure`), `infrastructure:<kind>` (`infrastructure`), or `''` (`none`).
   */
  signature: string;
  /** The first error line as printed (ANSI removed, trimmed); `null` when there is none. */
  firstErrorLine: string | null;
  /** `TypeError`, `AssertionError`, `TS2345`, `panic`, `FAIL`, ...; `null` when there is no error. */
  errorType: string | null;
  /** Source file of the error without line numbers (`src/auth/login.ts`); `null` when unknown. */
  location: string | null;
  /** Failing test names (vitest, jest, pytest, go test), in order of appearance. */
  failingTests: string[];
  /** The infrastructure family when `kind` is `infrastructure`, else `null`. */
  infrastructure: InfrastructureKind | null;
}

/**
 * A line that reports an error (exported for the step detector's probe results). Like every pattern here it runs in linear time: a dotted name may
 * start only where no word character or dot precedes it, so a run like `A.A.A.…` is tried once.
 */
export const ERROR_LINE =
  /(?:(?<![\w.])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b|^Error\b|\bFAIL(?:ED)?\b|\bFailed\b|^panic:|\berror(?:\s+TS\d+|\[E\d+\])?:|\berror TS\d+\b|\bERR!|^E\s{2,}\S)/;
/**
 * Words of which every {@link ERROR_LINE} match holds one (`Error`, `Exception`, `FAIL`, `Failed`,
 * `ERR!`, `error`, `panic:`, `E` and two spaces): a line without any reports no error, and looking
 * for them costs a fraction of the pattern. Exported for the step detector's probe results.
 */
export const ERROR_LINE_HINT = /Error|Exception|FAIL|Failed|ERR!|error|panic:|E\s\s/;
/** Headers that announce errors (exported with {@link ERROR_LINE}) without naming one (pytest's traceback, vitest's `⎯⎯ Failed Tests 1 ⎯⎯`, go's bare `FAIL`). */
export const SKIPPED_LINE = /^(?:Traceback \(most recent call last\):|FAIL\s*$|[⎯=_─]{3,})/;
const TYPED_ERROR =
  /(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception))\b|\berror (TS\d+)\b|\berror\[(E\d+)\]|^(panic):/;
/**
 * A source file path. The lookbehind lets a match start only where a path can start (never inside
 * a run of path characters), which keeps the search linear in the line's length; the extra slashes
 * of a `file:///` URL are skipped. Group 1 is the path.
 */
const SOURCE_PATH =
  /(?<![\w@.\-~/\\])(?:\/\/(?=\/))?((?:[A-Za-z]:[/\\]|\/)?(?:[\w@.\-~]+[/\\])*[\w@\-~][\w@.\-~]*\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|cpp|cc|c|hpp|h|swift|vue|svelte))(?=[:(),\s"'\]]|$)/;

/** A source path followed by a line number: `a.ts:12`, `a.ts(12,5)`, `File "a.py", line 12`. */
const SOURCE_POSITION = new RegExp(`${SOURCE_PATH.source}(?=:\\d|\\(\\d|", line \\d)`);

/**
 * Classifies one output of an agent, a test runner or a compiler and extracts the normalised
 * signature of its first error. Recognises the forms printed by vitest, jest, pytest, go test,
 * tsc and node (uncaught exceptions with stack traces), plus any `Error`, `Exception`, `Failed`
 * or `FAIL` line. Runs in time linear in the output's size; each line is read up to
 * {@link MAX_PARSED_LINE_LENGTH} characters.
 *
 * @example
 * errorSignature('src/a.ts(12,5): error TS2345: Argument of type ...').signature;
 * // 'src/a.ts(<n>): error TS2345: Argument of type ...'
 * errorSignature('Error: 429 Too Many Requests').kind; // 'infrastructure'
 */
export function errorSignature(output: string): ErrorSignature {
  const lines = parsedLines(output);
  const errorLine = errorLineOf(lines);
  const infrastructure = classifyInfrastructure(lines, errorLine);
  if (infrastructure !== null) {
    return {
      kind: 'infrastructure',
      signature: `infrastructure:${infrastructure}`,
      firstErrorLine: errorLine?.trim() ?? null,
      errorType: null,
      location: null,
      failingTests: [],
      infrastructure,
    };
  }
  if (errorLine === undefined) return noError();
  const first = errorLine.trim();
  return {
    kind: 'failure',
    signature: normalizeVolatile(first),
    firstErrorLine: first,
    errorType: errorTypeOf(lines, first),
    location: locationOf(lines, first),
    failingTests: failingTestNames(lines),
    infrastructure: null,
  };
}

/** The first line that reports an error (untrimmed), if any. */
function errorLineOf(lines: readonly string[]): string | undefined {
  return lines.find(
    (line) => ERROR_LINE_HINT.test(line) && ERROR_LINE.test(line.trim()) && !SKIPPED_LINE.test(line.trim()),
  );
}

/**
 * `errorSignature(output).firstErrorLine` without the rest of the signature (no infrastructure,
 * type, location or test names): for a caller that needs only the line.
 * @example firstErrorLine('ok\n  TypeError: x is undefined'); // 'TypeError: x is undefined'
 */
export function firstErrorLine(output: string): string | null {
  return errorLineOf(parsedLines(output))?.trim() ?? null;
}

function noError(): ErrorSignature {
  return {
    kind: 'none',
    signature: '',
    firstErrorLine: null,
    errorType: null,
    location: null,
    failingTests: [],
    infrastructure: null,
  };
}

/** Infrastructure when the first error line is one, or when there is no error line but some line is. */
function classifyInfrastructure(
  lines: readonly string[],
  errorLine: string | undefined,
): InfrastructureKind | null {
  if (errorLine !== undefined) return infrastructureKindOf(errorLine);
  for (const line of lines) {
    const kind = infrastructureKindOf(line);
    if (kind !== null) return kind;
  }
  return null;
}

/** The first typed error anywhere (a test runner prints `FAIL` before the `AssertionError`), else the line's own kind. */
function errorTypeOf(lines: readonly string[], first: string): string {
  for (const line of lines) {
    const match = TYPED_ERROR.exec(line.trim());
    const type = match?.[1] ?? match?.[2] ?? match?.[3] ?? match?.[4];
    if (type !== undefined) return type;
  }
  if (/^E\s{2,}assert/.test(first)) return 'AssertionError';
  if (/\bFAIL(?:ED)?\b/.test(first)) return 'FAIL';
  if (/\bFailed\b/.test(first)) return 'Failed';
  return 'Error';
}

/** The source file named by the error line, else by the first stack frame or `file:line` outside dependencies. */
function locationOf(lines: readonly string[], first: string): string | null {
  const own = SOURCE_PATH.exec(first)?.[1];
  if (own !== undefined) return normalizeVolatile(own);
  for (const line of lines) {
    if (/node_modules|node:internal|\(node:|site-packages|\/usr\/lib\/|GOROOT/.test(line)) continue;
    const path = SOURCE_POSITION.exec(line)?.[1];
    if (path !== undefined) return normalizeVolatile(path);
  }
  return null;
}
