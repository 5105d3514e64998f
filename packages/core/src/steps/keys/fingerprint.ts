/**
 * What an output tells the agent, as line fingerprints. A line is hashed token by token (tokens are
 * runs of characters between spaces, quotes and `: , ( ) [ ] ; { } < >`), twice:
 * - its *exact* fingerprint masks only what is volatile: a number at the start of a line or next to
 *   a `:` (line numbers, `file.py:12`, clock times) or after `pid`, a number with a short unit (`0.5s`, `12ms`), a
 *   hex address or id (`0x7f3a`, `3f9a2c1d`). Other numbers are kept: `compiled 10 of 100` after
 *   `compiled 5 of 100` is news, and so is `count=404`;
 * - its *shape* masks every token without letters too: `(178 lines total)` and `(124 lines total)`
 *   have one shape, which is how output that only accumulates is recognised.
 * In a short reply (at most {@link ECHO_MAX_LINES} lines), tokens that the action itself contains
 * are masked in both: `No matches found for "foo" in /repo` says the same after any search. A line
 * made only of echoed tokens is kept as it is: it is the answer (a module name printed back).
 */
import { SCRATCH_SEEN_CAPACITY, ScratchSeen } from './scratchSeen.js';
import {
  FLAG_BITS,
  FNV_OFFSET,
  FNV_PRIME,
  isDigit,
  isSeparator,
  LENGTH_SHIFT,
  LINE_END,
  NOISE,
  NUMERIC,
  scanTokens,
  TOKEN_ENDS,
  TOKEN_FLAGS,
  TOKEN_HASHES,
  VOLATILE,
} from './tokenScan.js';

/** Characters of an output read from its start; with {@link OUTPUT_TAIL}, the bound on the work per output. */
export const OUTPUT_HEAD = 4000;
/** Characters of an output read from its end (when it is longer than head and tail together). */
export const OUTPUT_TAIL = 2000;
/** Replies with at most this many lines have the action's own words masked. */
export const ECHO_MAX_LINES = 8;
/** Most distinct line fingerprints kept per output. */
export const MAX_OUTPUT_LINES = SCRATCH_SEEN_CAPACITY;
/** Reused by every call (a fingerprint is computed start to end, never interleaved): no garbage per output. */
const SCRATCH_LINES = new ScratchSeen();
const SCRATCH_SHAPES = new ScratchSeen();
/** Echo tokens shorter than this are never masked (`-n`, `cd`). */
const MIN_ECHO_TOKEN = 3;

/** {@link FNV_OFFSET} as int32. */
const OFFSET = FNV_OFFSET | 0;
const DIGITS_ONLY = 0x2f2f2f2f;
const ECHOED = 0x5e5e5e5e;

/** The fingerprint of one output. */
export interface Fingerprint {
  /** Distinct exact line fingerprints, in order of first appearance (at most {@link MAX_OUTPUT_LINES}). */
  lines: number[];
  /** Distinct line shapes, in order of first appearance (at most {@link MAX_OUTPUT_LINES}). */
  shapes: number[];
  /** Order-insensitive hash of the distinct shapes: equal for outputs that differ only by repeated lines and counts. */
  key: number;
  /** Lines whose shape already occurred earlier in the same output. */
  duplicates: number;
  /**
   * An order-sensitive hash of every line with only noise masked (see `NOISE` in `tokenScan.ts`): what a
   * probe's result is compared on, so that `12 failed` → `9 failed` or `key: 0` → `key: 1` is a change.
   * Computed only when asked for (`withResult`); 0 otherwise.
   */
  result: number;
}

/** A well-mixed 32-bit value (murmur3's finaliser), so that sums of line hashes do not cancel. */
export function mix32(h: number): number {
  let x = h >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * Raw hashes of the tokens of an action's text (at least 3 characters long), as int32 (`| 0`: V8
 * keeps them unboxed), what an output may echo.
 * @example echoTokens('search_dir "foo"').size; // 2
 */
export function echoTokens(actionText: string): Set<number> {
  const tokens = new Set<number>();
  const entries = scanTokens(actionText, 0, Math.min(actionText.length, OUTPUT_HEAD));
  for (let t = 0; t < entries; t++) {
    if ((TOKEN_FLAGS[t] as number) >> LENGTH_SHIFT >= MIN_ECHO_TOKEN) tokens.add(TOKEN_HASHES[t] as number);
  }
  return tokens;
}

/**
 * `lineClass(line, echoTokens(actionText))`, found by looking the line's few tokens up in the
 * action's text instead of hashing every token of it: a refusal's first line against an edit of
 * kilobytes (hashing the edit's tokens cost tens of microseconds a refusal).
 */
export function lineClassAgainst(line: string, actionText: string): number {
  return lineClass(
    line,
    searchEchoes(line, OUTPUT_HEAD, actionText, Number.POSITIVE_INFINITY) as ReadonlySet<number>,
  );
}

/**
 * Distinct tokens of a text that {@link echoedTokens} looks for in the action one by one at most,
 * and characters of the action's head a search must spare for each: a text with more takes the
 * action's whole token set ({@link echoTokens}), which costs a scan of the action's head and a set
 * entry per token. A search is a native `indexOf` over the head; the scan handles a character in
 * JavaScript, several times slower, so a search pays off only in a long head.
 */
export const ECHO_SEARCHES = 12;
/** Characters of an action's text a search must spare for each of the {@link ECHO_SEARCHES}. */
const HEAD_PER_SEARCH = 32;
/** Reused by every call of {@link echoedTokens} (read before the next call): no garbage per reply. */
const SCRATCH_ECHOED = new Set<number>();
const SCRATCH_ASKED = new Set<number>();

/**
 * The tokens of `text` (raw hashes, at least 3 characters long) that are tokens of `actionText` too
 * (of its first {@link OUTPUT_HEAD} characters, as {@link echoTokens} reads it): each of the text's
 * tokens looked for in the action's text (a native search, a match counted only where a token
 * starts and ends), the action never scanned. The tokens of `text` among {@link echoTokens}'s
 * answer, found without building it (equal but for two tokens of one 32-bit hash). `undefined`
 * when `text` has more than {@link ECHO_SEARCHES} distinct tokens, or the action's text is shorter
 * than 32 characters for each of them (its scan is then the cheaper). The set is shared: read it
 * before the next call.
 * @example echoedTokens('File created at: /w/a.py', `create /w/a.py ${'x'.repeat(400)}`)?.size; // 1 (`/w/a.py`)
 */
export function echoedTokens(text: string, actionText: string): ReadonlySet<number> | undefined {
  // A short action is scanned whole sooner than searched once per token.
  if (actionText.length < ECHO_SEARCHES * HEAD_PER_SEARCH) return undefined;
  return searchEchoes(text, OUTPUT_HEAD + OUTPUT_TAIL, actionText, ECHO_SEARCHES);
}

/**
 * The tokens among the first `read` characters of `text` (at least 3 characters long) that are
 * tokens of `actionText`'s head too, each looked for with a native search; `undefined` past `most`
 * distinct tokens. The set is shared (see {@link echoedTokens}).
 */
function searchEchoes(
  text: string,
  read: number,
  actionText: string,
  most: number,
): ReadonlySet<number> | undefined {
  const echoed = SCRATCH_ECHOED;
  const asked = SCRATCH_ASKED;
  echoed.clear();
  asked.clear();
  const head = actionText.length > OUTPUT_HEAD ? actionText.slice(0, OUTPUT_HEAD) : actionText;
  const entries = scanTokens(text, 0, Math.min(text.length, read));
  for (let t = 0; t < entries; t++) {
    const length = (TOKEN_FLAGS[t] as number) >> LENGTH_SHIFT;
    const hash = TOKEN_HASHES[t] as number;
    if (length < MIN_ECHO_TOKEN || asked.has(hash)) continue;
    if (asked.size === most) return undefined;
    asked.add(hash);
    const end = TOKEN_ENDS[t] as number;
    if (isTokenOf(head, text.slice(end - length, end))) echoed.add(hash);
  }
  return echoed;
}

/** Whether `token` occurs in `text` as a whole token (a separator or the text's end on each side). */
function isTokenOf(text: string, token: string): boolean {
  const length = token.length;
  for (let at = text.indexOf(token); at !== -1; at = text.indexOf(token, at + 1)) {
    const end = at + length;
    if (
      (at === 0 || isSeparator(text.charCodeAt(at - 1))) &&
      (end === text.length || isSeparator(text.charCodeAt(end)))
    )
      return true;
  }
  return false;
}

function countLines(text: string, from: number, to: number, limit: number): number {
  let lines = 1;
  for (
    let at = text.indexOf('\n', from);
    at !== -1 && at < to && lines <= limit;
    at = text.indexOf('\n', at + 1)
  )
    lines++;
  return lines;
}

/**
 * Whether {@link fingerprint} masks the tokens of `echo` in `output`: a short reply (at most
 * {@link ECHO_MAX_LINES} lines) to an action with tokens. Otherwise the fingerprint depends on the output alone.
 */
export function masksEcho(output: string, echo: ReadonlySet<number>): boolean {
  return echo.size > 0 && isShortReply(output);
}

/**
 * Whether `output` is a short reply (at most {@link ECHO_MAX_LINES} lines, read whole): the only
 * outputs in which {@link fingerprint} masks the action's words, so the only ones that need them.
 */
export function isShortReply(output: string): boolean {
  return (
    output.length <= OUTPUT_HEAD + OUTPUT_TAIL &&
    countLines(output, 0, output.length, ECHO_MAX_LINES) <= ECHO_MAX_LINES
  );
}

/**
 * The part of `output` that {@link fingerprint} reads (its head and tail when long): equal texts, equal fingerprints
 * when {@link masksEcho} is false.
 */
export function fingerprintedText(output: string): string {
  if (output.length <= OUTPUT_HEAD + OUTPUT_TAIL) return output;
  return `${output.slice(0, OUTPUT_HEAD)}\u0000${output.slice(-OUTPUT_TAIL)}`;
}

/**
 * The fingerprint of an output: its first {@link OUTPUT_HEAD} and last {@link OUTPUT_TAIL}
 * characters, line by line, digits left out, and (in a reply of at most {@link ECHO_MAX_LINES}
 * lines) the tokens of `echo` (as {@link echoTokens} gives them) masked; with `withResult`, also
 * {@link Fingerprint.result} (a probe's output).
 * @example fingerprint('a.py:12 failed', new Set()).key === fingerprint('a.py:40 failed', new Set()).key; // true
 * @example fingerprint('count=1', new Set()).key === fingerprint('count=2', new Set()).key; // false
 */
export function fingerprint(output: string, echo: ReadonlySet<number>, withResult = false): Fingerprint {
  const long = output.length > OUTPUT_HEAD + OUTPUT_TAIL;
  const maskEcho = masksEcho(output, echo);
  const seenLines = SCRATCH_LINES;
  const seenShapes = SCRATCH_SHAPES;
  seenLines.clear();
  seenShapes.clear();
  const lines: number[] = [];
  const shapes: number[] = [];
  let key = 0;
  let duplicates = 0;
  let result = FNV_OFFSET;
  // The line hashes are kept as int32 (`OFFSET`, `Math.imul`): the same bits as uint32, and no
  // conversion per token between the two (XOR and `mix32` read them alike).
  let exactLine = OFFSET;
  let line = OFFSET;
  let shape = OFFSET;
  // The same line with no echo masking: used when every token of the line is echoed (the answer
  // itself, such as a module name printed back), where masking would leave nothing.
  let plainLine = OFFSET;
  let plainShape = OFFSET;
  let tokens = 0;
  let ownTokens = 0;
  let lastEchoed = false;
  // One scan per range (the head, then the tail of a long output), every token and line handled inline.
  for (let part = long ? 0 : 1; part < 2; part++) {
    const from = part === 0 ? 0 : long ? output.length - OUTPUT_TAIL : 0;
    const to = part === 0 ? OUTPUT_HEAD : output.length;
    const entries = scanTokens(output, from, to);
    for (let t = 0; t < entries; t++) {
      const flags = (TOKEN_FLAGS[t] as number) & FLAG_BITS;
      if (flags !== LINE_END) {
        const raw = TOKEN_HASHES[t] as number;
        // A token whose hash is 0 reads as volatile, as it always has (0 marked a volatile token).
        const plain = (flags & VOLATILE) !== 0 || raw === 0 ? DIGITS_ONLY : raw;
        const plainShapePart = (flags & NUMERIC) !== 0 ? DIGITS_ONLY : plain;
        const echoed = maskEcho && echo.has(raw);
        // A run of echoed words is one placeholder: a search of two words and one of three say the same.
        if (!(echoed && lastEchoed)) {
          if (withResult) {
            const exact = (flags & NOISE) !== 0 || raw === 0 ? DIGITS_ONLY : raw;
            exactLine = Math.imul(exactLine ^ (echoed ? ECHOED : exact), FNV_PRIME);
          }
          line = Math.imul(line ^ (echoed ? ECHOED : plain), FNV_PRIME);
          shape = Math.imul(shape ^ (echoed ? ECHOED : plainShapePart), FNV_PRIME);
        }
        lastEchoed = echoed;
        // Needed only when a line can be all echoed words.
        if (maskEcho) {
          plainLine = Math.imul(plainLine ^ plain, FNV_PRIME);
          plainShape = Math.imul(plainShape ^ plainShapePart, FNV_PRIME);
        }
        tokens++;
        if (!echoed) ownTokens++;
        continue;
      }
      if (tokens > 0) {
        if (withResult) result = mix32(Math.imul(result, 31) + exactLine);
        const hash = mix32(ownTokens > 0 ? line : plainLine);
        if (!seenLines.has(hash) && lines.length < MAX_OUTPUT_LINES) {
          seenLines.add(hash);
          lines.push(hash);
        }
        const shapeHash = mix32(ownTokens > 0 ? shape : plainShape);
        if (seenShapes.has(shapeHash)) duplicates++;
        else if (shapes.length < MAX_OUTPUT_LINES) {
          seenShapes.add(shapeHash);
          shapes.push(shapeHash);
          key = (key + shapeHash) >>> 0;
        }
      }
      line = OFFSET;
      exactLine = OFFSET;
      shape = OFFSET;
      plainLine = OFFSET;
      plainShape = OFFSET;
      tokens = 0;
      ownTokens = 0;
      lastEchoed = false;
    }
  }
  return { lines, shapes, key, duplicates, result: withResult ? result >>> 0 || 1 : 0 };
}

/**
 * The fingerprint of one line of text, every digit left out and the tokens of `echo` masked: the class
 * of an error line, equal for `bash: cd: fastjson: No such file` after `cd fastjson` and after `cd fastxml`.
 */
export function lineClass(line: string, echo: ReadonlySet<number>): number {
  let hash = FNV_OFFSET;
  const entries = scanTokens(line, 0, Math.min(line.length, OUTPUT_HEAD));
  for (let t = 0; t < entries; t++) {
    const flags = TOKEN_FLAGS[t] as number;
    if (flags === LINE_END) {
      hash = Math.imul(hash ^ 10, FNV_PRIME);
      continue;
    }
    let part = DIGITS_ONLY;
    if (echo.has(TOKEN_HASHES[t] as number)) part = ECHOED;
    else if ((flags & (VOLATILE | NUMERIC)) === 0) {
      const end = TOKEN_ENDS[t] as number;
      const digitless = digitlessHash(line, end - (flags >> LENGTH_SHIFT), end);
      if (digitless !== 0) part = digitless;
    }
    hash = Math.imul(hash ^ part, FNV_PRIME);
  }
  return mix32(hash);
}

/** FNV-1a of `text[from, to)` with its digits left out, as uint32. */
function digitlessHash(text: string, from: number, to: number): number {
  let hash = FNV_OFFSET;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) hash = Math.imul(hash ^ code, FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * A hash of `text` token by token with only noise masked (`NOISE` in `tokenScan.ts`: line numbers after
 * `line` or glued to `:`, timings, addresses, pids): `got 0 vs 1` and `got 1 vs 1` differ, `a.py:12`
 * and `a.py:40` do not.
 * @example exactHash('KeyError at 0x7f3a') === exactHash('KeyError at 0x7f99'); // true
 */
export function exactHash(text: string): number {
  let hash = FNV_OFFSET;
  const entries = scanTokens(text, 0, Math.min(text.length, OUTPUT_HEAD));
  for (let t = 0; t < entries; t++) {
    const flags = TOKEN_FLAGS[t] as number;
    const token = (TOKEN_HASHES[t] as number) >>> 0;
    hash = Math.imul(
      hash ^ (flags === LINE_END ? 10 : (flags & NOISE) !== 0 || token === 0 ? DIGITS_ONLY : token),
      FNV_PRIME,
    );
  }
  return mix32(hash);
}
