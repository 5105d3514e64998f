import { ERROR_LINE, SKIPPED_LINE } from '../signatures/errorSignature.js';
import { fingerprintedText } from './fingerprint.js';

/** A test runner's summary (`3 failed, 9 passed`): its counts are the result. */
export const SUMMARY_LINE = /\b\d+ (?:failed|passed|errors?|failures?)\b/;
/** Whether a text has a line that may be a key line (a cheap first test; {@link keyLines} decides). */
export const ANY_KEY_LINE = new RegExp(`${SUMMARY_LINE.source}|${ERROR_LINE.source}`, 'm');
/** Key lines kept per result. */
const MAX_KEY_LINES = 8;
/** Characters kept per key line. */
const KEY_LINE_CHARS = 240;
/** Words remembered of what the agent typed into its own scripts. */
export const MAX_TYPED_WORDS = 512;

/**
 * Noise in a key line: addresses, random ids (UUIDs, hex ids, numbers of ten digits or more with
 * the dotted groups around them: timestamps, message ids), line numbers, durations, pids and temporary names (`/tmp/tmpa8x2`,
 * `tmpk3j9_q`). Every other digit stays: a count that moves is a new result.
 */
const NOISE: ReadonlyArray<[RegExp, string]> = [
  [/\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g, 'uuid#'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/g, 'id#'],
  [/0x[0-9a-fA-F]+/g, '0x#'],
  [/[\d.]*\d{10,}[\d.]*/g, 'n#'],
  [/\bline \d+/g, 'line #'],
  [/:\d+(?::\d+)?\b/g, ':#'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|µs|us|ns)\b/g, '#s'],
  [/\bpid[ =:]?\d+/gi, 'pid #'],
  [/\/tmp\/[^\s'"),\]]+/g, '/tmp/#'],
  [/\btmp[\w-]{4,}/g, 'tmp#'],
  [/\bat 0x#|object at \S+>/g, 'object>'],
];

/**
 * The key lines of a probe's output: what it *says* (the final error or assertion, the failing
 * tests, a test runner's summary), noise masked, the newest {@link MAX_KEY_LINES}; `''` when the
 * output has none (then its whole output is its result). A traceback's frames and the debug output
 * around the error are not key lines: the same failure is the same result however they vary.
 *
 * @example keyLines('Traceback (most recent call last):\n  File "a.py", line 3\nKeyError: 1'); // 'KeyError: 1'
 */
export function keyLines(output: string): string {
  const text = fingerprintedText(output);
  const found: string[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, Math.min(end, start + 4 * KEY_LINE_CHARS)).trim();
    if (line !== '' && (SUMMARY_LINE.test(line) || (ERROR_LINE.test(line) && !SKIPPED_LINE.test(line)))) {
      found.push(maskNoise(line.slice(0, KEY_LINE_CHARS)));
      if (found.length > MAX_KEY_LINES) found.shift();
    }
    start = end + 1;
  }
  return found.join('\n');
}

/** A line with its noise masked (see {@link NOISE}). */
export function maskNoise(line: string): string {
  let masked = line;
  for (const [pattern, mask] of NOISE) masked = masked.replace(pattern, mask);
  return masked;
}

/** Characters of a change read for its words (as many as an action is classified on). */
const TYPED_TEXT = 4000;
/** Identifier-like words (three characters or more, starting with a letter or `_`). */
const WORD = /[A-Za-z_]\w{2,}/g;

/**
 * The words of a change's text (what the agent typed into a file), at most {@link MAX_TYPED_WORDS}:
 * masked in the results of its own scripts, where they are the agent's own labels echoed back.
 */
export function typedWords(text: string): string[] {
  const words = new Set<string>();
  if (text.length > TYPED_TEXT) text = text.slice(0, TYPED_TEXT);
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null && words.size < MAX_TYPED_WORDS; m = WORD.exec(text)) {
    words.add(m[0]);
  }
  return [...words];
}

/** `key` with the words of `typed` masked (`~`): two results that differ only in them say the same. */
export function maskTyped(key: string, typed: ReadonlySet<string>): string {
  if (typed.size === 0) return key;
  return key.replace(WORD, (word) => (typed.has(word) ? '~' : word));
}

/**
 * The words typed by the changes after change number `after`, at most {@link MAX_TYPED_WORDS}; a
 * change's words may be read only now (a function).
 */
export function typedSince(
  changes: ReadonlyArray<{ change: number; words: readonly string[] | (() => readonly string[]) }>,
  after: number,
): string[] {
  const typed = new Set<string>();
  for (const change of changes) {
    if (change.change <= after) continue;
    const words = typeof change.words === 'function' ? change.words() : change.words;
    for (const word of words) if (typed.size < MAX_TYPED_WORDS) typed.add(word);
  }
  return [...typed];
}
