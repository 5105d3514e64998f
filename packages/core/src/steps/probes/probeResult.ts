import { exactHash, type Fingerprint, fingerprintedText, mix32 } from '../keys/fingerprint.js';
import { ANY_KEY_LINE, keyLines, maskNoise } from './probeKey.js';

/** A probe's result: the value compared across its runs, and the text it says, read when needed. */
export interface ProbeOutcome {
  /** The normalised result (never 0). */
  result: number;
  /**
   * What the result says, noise masked (`keyLines` of a failure, else the output's text with
   * `maskNoise`): computed on the first call only, for a result that differs from the previous run's.
   */
  key: () => string;
  /**
   * What the run says in its key lines only (the final error or assertion, the failing tests, the
   * summary: see `keyLines`), whatever the run's exit and the rest of its output: their hash, `0`
   * when it has none. Computed on the first call only (for a failure, it is the result).
   */
  verdict: () => number;
}

/**
 * A probe's normalised result, the value compared across its runs. For a run that failed (the tool
 * reported an error: a non-zero exit), the result is its key lines (the final error or assertion,
 * the failing tests, a test runner's summary: see `keyLines`) with only noise masked: the same
 * failure is the same result however the traceback's frames or the debug output around it vary, and
 * a new error, another failing test or a count that moves is a new one. Otherwise it is the whole
 * output with only noise masked ({@link Fingerprint.result}): a success that prints something new
 * is a new result. Its {@link ProbeOutcome.verdict} is its key lines alone, for the ceiling. Two results that differ are compared again by their keys (random ids and
 * timestamps masked too) only when that is needed.
 *
 * @param output - the probe's output; `print` its fingerprint; `error` whether the tool reported a failure.
 */
export function probeResult(output: string, print: Fingerprint, error: boolean): ProbeOutcome {
  if (error) {
    const lines = keyLines(output);
    if (lines !== '') {
      const result = mix32(exactHash(lines) ^ 0x5bd1e995) || 1;
      return { result, key: () => lines, verdict: () => result };
    }
  }
  let key: string | undefined;
  let verdict: number | undefined;
  return {
    result: mix32(print.result ^ (error ? 0x9e3779b9 : 0x7f4a7c15)) || 1,
    key: () => {
      key ??= maskNoise(fingerprintedText(output));
      return key;
    },
    verdict: () => {
      if (verdict === undefined) {
        // Most successful outputs have no key line, which `keyLines` finds in one search for its
        // hints; the search of the whole text for a key line is made only when it found some.
        let lines = error ? '' : keyLines(output);
        if (lines !== '' && !ANY_KEY_LINE.test(fingerprintedText(output))) lines = '';
        verdict = lines === '' ? 0 : mix32(exactHash(lines) ^ 0x5bd1e995) || 1;
      }
      return verdict;
    },
  };
}
