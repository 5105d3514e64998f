import { fingerprintedText } from '../keys/fingerprint.js';
import { MAX_OUTPUT_WORDS, type ProbeRecord, type ProbeRun } from './probeRecord.js';

/** Identifier-like words (three characters or more, starting with a letter or `_`). */
const WORD = /[A-Za-z_]\w{2,}/g;

/** What a probe run says in its key lines alone, and how long that has stayed the same. */
export interface VerdictRound {
  /** The run's key lines alone (their hash, `0`: none). */
  verdict: number;
  /** Rounds in a row with a change and these key lines (see {@link ProbeRecord.verdictRounds}). */
  verdictRounds: number;
  /** The key lines moved, the run has none, or the debug output the agent added appeared. */
  verdictNews: boolean;
  /** The run's output words (hashes), read when needed. */
  words: () => number[];
  /** The output shows a word the agent typed into the code under test since the previous run, which that run did not show: its debug output appeared. */
  shown: boolean;
}

/**
 * The verdict ceiling's round: a probe run whose key lines (the final error or assertion, the
 * failing tests, the summary) are the same as its previous run's after a change is one more round,
 * whatever else its output printed, unless the output now shows a word the agent typed into the
 * code under test since that run which the previous output did not show: the debug output it added
 * appearing is something learned.
 *
 * @param typed - the words typed into the code under test since the previous run (read only for a same verdict).
 * @example verdictRound(record, run, 1, () => []); // { verdict, verdictRounds: record.verdictRounds + 1, ... }
 */
export function verdictRound(
  previous: ProbeRecord | undefined,
  run: ProbeRun,
  changesSincePrevious: number,
  typed: () => readonly string[],
): VerdictRound {
  const sameResult = previous !== undefined && previous.result === run.result;
  const verdict = sameResult ? previous.verdict : run.verdict();
  const fresh = { verdict, verdictRounds: 0, verdictNews: true, words: NO_WORDS, shown: false };
  if (verdict === 0) return fresh;
  // An error's result is its key lines only: its words are read again after every change.
  const words = sameResult && changesSincePrevious === 0 ? previous.words : run.words;
  if (verdict !== previous?.verdict) return { ...fresh, words };
  const round = { ...fresh, words, verdictRounds: previous.verdictRounds, verdictNews: false };
  // An output of the same length printed nothing new: no words to look for.
  if (changesSincePrevious === 0 || run.length === previous.length)
    return { ...round, verdictRounds: previous.verdictRounds + (changesSincePrevious === 0 ? 0 : 1) };
  const typedWords = typed();
  const before = typedWords.length === 0 ? EMPTY : new Set(previous.words());
  const now = typedWords.length === 0 ? EMPTY : new Set(words());
  const shown = typedWords.some((word) => {
    const hash = wordHash(word);
    return now.has(hash) && !before.has(hash);
  });
  if (shown) return { ...fresh, words, shown };
  return { ...round, verdictRounds: previous.verdictRounds + 1 };
}

const NO_WORDS = (): number[] => [];
const EMPTY: ReadonlySet<number> = new Set();

/** The distinct words of an output's bounded text, as hashes, at most {@link MAX_OUTPUT_WORDS}. */
export function outputWords(output: string): number[] {
  const text = fingerprintedText(output);
  const words = new Set<number>();
  // `match` gives the words alone: no match object per word.
  for (const word of text.match(WORD) ?? []) {
    if (words.size >= MAX_OUTPUT_WORDS) break;
    words.add(wordHash(word));
  }
  return [...words];
}

/** A 32-bit FNV-1a hash of a word. */
function wordHash(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
