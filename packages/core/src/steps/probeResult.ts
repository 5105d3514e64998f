import { exactHash, type Fingerprint, fingerprintedText, mix32 } from './fingerprint.js';
import { keyLines, maskNoise } from './probeKey.js';
import { keyHash } from './stepHistory.js';

/** A probe's result: the value compared across its runs, and the text it was taken from. */
export interface ProbeOutcome {
  /** The normalised result (never 0). */
  result: number;
  /** What the result says, noise masked: the key lines of a failure, else the output's text. */
  key: string;
}

/**
 * A probe's normalised result, the value compared across its runs. For a run that failed (the tool
 * reported an error: a non-zero exit), the result is its key lines (the final error or assertion,
 * the failing tests, a test runner's summary: see `keyLines`) with only noise masked: the same
 * failure is the same result however the traceback's frames or the debug output around it vary, and
 * a new error, another failing test or a count that moves is a new one. Otherwise it is the whole
 * output with only noise masked ({@link Fingerprint.result}): a success that prints something new
 * is a new result.
 *
 * @param output - the probe's output; `print` its fingerprint; `error` whether the tool reported a failure.
 */
export function probeResult(output: string, print: Fingerprint, error: boolean): ProbeOutcome {
  if (error) {
    const key = keyLines(output);
    if (key !== '') return { result: mix32(exactHash(key) ^ 0x5bd1e995) || 1, key };
  }
  const key = maskNoise(fingerprintedText(output));
  const salt = error ? 0x9e3779b9 : 0x7f4a7c15;
  return { result: mix32(keyHash(key) ^ salt) || 1, key };
}
