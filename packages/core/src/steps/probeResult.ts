import { ERROR_LINE, SKIPPED_LINE } from '../signatures/errorSignature.js';
import { exactHash, type Fingerprint, fingerprintedText, mix32 } from './fingerprint.js';

/** A test runner's summary (`3 failed, 9 passed`): its counts are the result. */
const SUMMARY_LINE = /\b\d+ (?:failed|passed|errors?|failures?)\b/;
/** Failure lines read per result. */
const MAX_FAILURE_LINES = 32;

/**
 * A probe's normalised result, the value compared across its runs. For a run that failed (the tool
 * reported an error: a non-zero exit), the result is its failure lines (errors, failing tests, a
 * test runner's summary) with only noise masked: the same failure is the same result however the
 * traceback's frames or the debug output around it vary, and a new error, another failing test or
 * a count that moves is a new one. Otherwise it is the whole output with only noise masked
 * ({@link Fingerprint.result}): a success that prints something new is a new result.
 *
 * @param output - the probe's output; `print` its fingerprint; `error` whether the tool reported a failure.
 */
export function probeResult(output: string, print: Fingerprint, error: boolean): number {
  if (!error) return mix32(print.result ^ 0x7f4a7c15) || 1;
  let hash = 0;
  let failures = 0;
  const text = fingerprintedText(output);
  let start = 0;
  while (start <= text.length && failures < MAX_FAILURE_LINES) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    if (line !== '' && (SUMMARY_LINE.test(line) || (ERROR_LINE.test(line) && !SKIPPED_LINE.test(line)))) {
      hash = mix32(Math.imul(hash, 31) + exactHash(line));
      failures++;
    }
    start = end + 1;
  }
  const value = failures > 0 ? hash ^ 0x5bd1e995 : print.result ^ 0x9e3779b9;
  return mix32(value) || 1;
}
