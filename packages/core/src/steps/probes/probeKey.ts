import { ERROR_LINE, ERROR_LINE_HINT, SKIPPED_LINE } from '../../signatures/errorSignature.js';
import { hasHexRun, longestHexRun } from '../../signatures/hexRun.js';
import { fingerprintedText } from '../keys/fingerprint.js';
import { keyHash } from '../keys/keyHash.js';
import { isDigit } from '../keys/tokenScan.js';
import { canonicalSetOrder } from './setOrder.js';

/** A test runner's summary (`3 failed, 9 passed`): its counts are the result. */
export const SUMMARY_LINE = /\b\d+ (?:failed|passed|errors?|failures?)\b/;
/** Whether a text has a line that may be a key line (a cheap first test; {@link keyLines} decides). */
export const ANY_KEY_LINE = new RegExp(`${SUMMARY_LINE.source}|${ERROR_LINE.source}`, 'm');
/**
 * Words of which every key line holds one (`ERROR_LINE_HINT`, and the words of {@link SUMMARY_LINE}):
 * a line without any is not tested. One search of the text finds the lines worth testing, where
 * testing every line against `ERROR_LINE` was most of a failed probe's cost.
 */
const KEY_LINE_HINT = new RegExp(`${ERROR_LINE_HINT.source}|failed|passed|failure`, 'g');
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
 *
 * Each pattern has a cheap precondition that every match meets (a pattern that cannot match is not
 * run): `literals`, substrings one of which every match contains (looked for in the text as it stands);
 * `digit`, every match has a digit (tested once: no mask brings one in, `0x#` only where `0x` was);
 * `hexRun`, every match has a run of that many hex digits (no mask lengthens one).
 */
const NOISE: ReadonlyArray<{
  pattern: RegExp;
  mask: string;
  literals?: readonly string[];
  digit?: boolean;
  hexRun?: number;
}> = [
  {
    pattern: /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g,
    mask: 'uuid#',
    literals: ['-'],
    hexRun: 12,
  },
  { pattern: /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/g, mask: 'id#', digit: true, hexRun: 8 },
  { pattern: /0x[0-9a-fA-F]+/g, mask: '0x#', literals: ['0x'] },
  { pattern: /[\d.]*\d{10,}[\d.]*/g, mask: 'n#', digit: true, hexRun: 10 },
  { pattern: /\bline \d+/g, mask: 'line #', literals: ['line '], digit: true },
  { pattern: /:\d+(?::\d+)?\b/g, mask: ':#', literals: [':'], digit: true },
  { pattern: /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|µs|us|ns)\b/g, mask: '#s', digit: true },
  { pattern: /\bpid[ =:]?\d+/gi, mask: 'pid #', digit: true },
  { pattern: /\/tmp\/[^\s'"),\]]+/g, mask: '/tmp/#', literals: ['/tmp/'] },
  { pattern: /\btmp[\w-]{4,}/g, mask: 'tmp#', literals: ['tmp'] },
  { pattern: /\bat 0x#|object at \S+>/g, mask: 'object>', literals: ['at 0x#', 'object at '] },
];

const ANY_DIGIT = /\d/;
/** The shortest run of hex digits a {@link NOISE} pattern needs: a line without one needs no longer look. */
const SHORTEST_HEX_RUN = Math.min(...NOISE.map(({ hexRun }) => hexRun ?? Number.POSITIVE_INFINITY));

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
  // Only the lines with a hint are tested, each once, from its start: the leftmost hint of a line
  // is found first, and the search goes on at the next line.
  KEY_LINE_HINT.lastIndex = 0;
  for (let hint = KEY_LINE_HINT.exec(text); hint !== null; hint = KEY_LINE_HINT.exec(text)) {
    const start = text.lastIndexOf('\n', hint.index) + 1;
    let end = text.indexOf('\n', hint.index);
    if (end === -1) end = text.length;
    const line = text.slice(start, Math.min(end, start + 4 * KEY_LINE_CHARS)).trim();
    if (line !== '' && (SUMMARY_LINE.test(line) || (ERROR_LINE.test(line) && !SKIPPED_LINE.test(line)))) {
      found.push(maskNoise(line.slice(0, KEY_LINE_CHARS)));
      if (found.length > MAX_KEY_LINES) found.shift();
    }
    KEY_LINE_HINT.lastIndex = end + 1;
  }
  // A stack overflow is one result wherever the limit struck (see STACK_OVERFLOW).
  const last = found[found.length - 1];
  if (last !== undefined && STACK_OVERFLOW.test(last)) return STACK_OVERFLOW_KEY;
  return found.join('\n');
}

/**
 * A run that ends in a stack overflow: the depth limit strikes at whatever frame the recursion has
 * reached, so the message's tail (`while calling a Python object`, `in comparison`) and the errors
 * raised while the stack unwinds (a cache's `KeyError`s) vary from run to run of one unchanged
 * program. Its key is the overflow alone.
 */
const STACK_OVERFLOW =
  /^(?:RecursionError: maximum recursion depth exceeded|(?:java\.lang\.)?StackOverflowError|RangeError: Maximum call stack size exceeded)/;
const STACK_OVERFLOW_KEY = 'stack overflow';

/** A line with its noise masked (see {@link NOISE}), its printed sets in one order (`canonicalSetOrder`). */
export function maskNoise(line: string): string {
  const hasDigit = ANY_DIGIT.test(line);
  // Measured once, on the line as given: no mask lengthens a run, so a pattern that needs a longer
  // run than the line's longest cannot match (and one that is run when a mask shortened it finds nothing).
  // A line with no run of the shortest length any pattern needs (most) is not measured further: 0.
  let longestRun = -1;
  let masked = line;
  for (const { pattern, mask, literals, digit, hexRun } of NOISE) {
    if (digit === true && !hasDigit) continue;
    if (literals !== undefined && !literals.some((literal) => masked.includes(literal))) continue;
    if (hexRun !== undefined) {
      if (longestRun === -1) longestRun = hasHexRun(line, SHORTEST_HEX_RUN) ? longestHexRun(line) : 0;
      if (longestRun < hexRun) continue;
    }
    masked = masked.replace(pattern, mask);
  }
  return canonicalSetOrder(masked);
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
  // `match` gives the words alone: no match object per word.
  for (const word of (text.length > TYPED_TEXT ? text.slice(0, TYPED_TEXT) : text).match(WORD) ?? []) {
    if (words.size >= MAX_TYPED_WORDS) break;
    words.add(word);
  }
  return [...words];
}

/** `key` with the words of `typed` masked (`~`): two results that differ only in them say the same. */
export function maskTyped(key: string, typed: ReadonlySet<string>): string {
  if (typed.size === 0) return key;
  return key.replace(WORD, (word) => (typed.has(word) ? '~' : word));
}

/** Whether the character code is one of `\w` (`[A-Za-z0-9_]`): the characters a {@link WORD} is made of. */
function isWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || isDigit(code) || code === 95;
}

/**
 * Whether `maskTyped(a, typed) === maskTyped(b, typed)`, without masking either: the two masked
 * texts are read side by side and compared up to their first difference. A word is a run of word
 * characters from its first letter, so no word crosses a non-word character: the common start of
 * both texts up to such a character, and their common end from one, are masked alike and are not
 * read. Two keys of a probe mostly differ early and share all but a line or two; masking both
 * whole (a callback per word) read all of them.
 * @example sameMasked('x = foo1', 'x = bar1', new Set(['foo1', 'bar1'])); // true
 */
export function sameMasked(a: string, b: string, typed: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (typed.size === 0) return false;
  const shorter = Math.min(a.length, b.length);
  let start = 0;
  while (start < shorter && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  // Back to the start of the word characters the first difference is in (or follows).
  while (start > 0 && isWordCode(a.charCodeAt(start - 1))) start--;
  let end = 0;
  const most = shorter - start;
  while (end < most && a.charCodeAt(a.length - 1 - end) === b.charCodeAt(b.length - 1 - end)) end++;
  // Forward to a common end that starts with a non-word character (or is empty).
  while (end > 0 && isWordCode(a.charCodeAt(a.length - end))) end--;
  const left = new MaskedReader(a, start, a.length - end, typed);
  const right = new MaskedReader(b, start, b.length - end, typed);
  for (;;) {
    const code = left.next();
    if (code !== right.next()) return false;
    if (code === -1) return true;
  }
}

/** Distinct lines of a result's whole key whose hashes a probe keeps (see {@link lineHashes}). */
export const MAX_LINE_HASHES = 256;

/**
 * The 32-bit hashes of the distinct lines of an answer (blank lines and indentation aside), sorted:
 * what {@link holdsWhole} compares, kept per probe for its whole key where the snapshot keeps only
 * a bounded copy of the text. `[]` when the answer has more than `most` distinct lines (too many to
 * keep: the bounded copy is judged instead).
 *
 * @example lineHashes('a\n  a\n\nb').length; // 2
 */
export function lineHashes(answer: string, most = Number.POSITIVE_INFINITY): number[] {
  const hashes = new Set<number>();
  for (const line of answer.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    hashes.add(keyHash(trimmed));
    if (hashes.size > most) return [];
  }
  return [...hashes].sort((a, b) => a - b);
}

/**
 * Whether the answer `after` holds every line of the answer `before` and lines of its own: the
 * earlier answer whole, with more. Both as their {@link lineHashes}.
 *
 * @example holdsWhole(lineHashes('case 1: 0 rows'), lineHashes('case 1: 0 rows\ncase 2: 0 rows')); // true
 * @example holdsWhole(lineHashes('case 1: 0 rows'), lineHashes('case 1: 3 rows\ncase 2: 0 rows')); // false: case 1 moved
 */
export function holdsWhole(before: readonly number[], after: readonly number[]): boolean {
  if (before.length === 0 || after.length <= before.length) return false;
  const later = new Set(after);
  return before.every((line) => later.has(line));
}

/** Reads `maskTyped(text.slice(from, to), typed)` one character code at a time (-1 at its end), `from` starting a run of word characters or not in one. */
class MaskedReader {
  private at: number;
  /** Where the `~` of the word being read goes (-1: none), and where that word ends. */
  private maskAt = -1;
  private maskEnd = 0;

  constructor(
    private readonly text: string,
    from: number,
    private readonly to: number,
    private readonly typed: ReadonlySet<string>,
  ) {
    this.at = from;
  }

  next(): number {
    const { text } = this;
    if (this.at === this.maskAt) {
      this.at = this.maskEnd;
      this.maskAt = -1;
      return TILDE;
    }
    if (this.at >= this.to) return -1;
    const code = text.charCodeAt(this.at);
    if (
      this.maskAt === -1 &&
      isWordCode(code) &&
      (this.at === 0 || !isWordCode(text.charCodeAt(this.at - 1)))
    ) {
      // A run of word characters starts: its word, if any, is from its first letter or `_` to its end.
      let end = this.at + 1;
      while (end < this.to && isWordCode(text.charCodeAt(end))) end++;
      let first = this.at;
      while (first < end && isDigit(text.charCodeAt(first))) first++;
      if (end - first >= 3 && this.typed.has(text.slice(first, end))) {
        this.maskAt = first;
        this.maskEnd = end;
        return this.next();
      }
    }
    this.at++;
    return code;
  }
}

const TILDE = 126;

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
