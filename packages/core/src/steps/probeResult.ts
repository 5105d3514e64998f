import { exactHash, type Fingerprint, fingerprintedText, mix32 } from './fingerprint.js';
import { keyLines, maskNoise } from './probeKey.js';

/** A probe's result: the value compared across its runs, and the text it says, read when needed. */
export interface ProbeOutcome {
  /** The normalised result (never 0). */
  result: number;
  /**
   * What the result says, noise masked (`keyLines` of a failure, else the output's text with
   * `maskNoise`): computed on the first call only, for a result that differs from the previous run's.
   */
  key: () => string;
}

/**
 * A probe's normalised result, the value compared across its runs. For a run that failed (the tool
 * reported an error: a non-zero exit), the result is its key lines (the final error or assertion,
 * the failing tests, a test runner's summary: see `keyLines`) with only noise masked: the same
 * failure is the same result however the traceback's frames or the debug output around it vary, and
 * a new error, another failing test or a count that moves is a new one. Otherwise it is the whole
 * output with only noise masked ({@link Fingerprint.result}): a success that prints something new
 * is a new result. Two results that differ are compared again by their keys (random ids and
 * timestamps masked too) only when that is needed.
 *
 * @param output - the probe's output; `print` its fingerprint; `error` whether the tool reported a failure.
 */
export function probeResult(output: string, print: Fingerprint, error: boolean): ProbeOutcome {
  if (error) {
    const lines = keyLines(output);
    if (lines !== '') return { result: mix32(exactHash(lines) ^ 0x5bd1e995) || 1, key: () => lines };
  }
  let key: string | undefined;
  return {
    result: mix32(print.result ^ (error ? 0x9e3779b9 : 0x7f4a7c15)) || 1,
    key: () => {
      key ??= maskNoise(fingerprintedText(output));
      return key;
    },
  };
}
