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
/** Characters of an output read from its start; with {@link OUTPUT_TAIL}, the bound on the work per output. */
export const OUTPUT_HEAD = 4000;
/** Characters of an output read from its end (when it is longer than head and tail together). */
export const OUTPUT_TAIL = 2000;
/** Replies with at most this many lines have the action's own words masked. */
export const ECHO_MAX_LINES = 8;
/** Most distinct line fingerprints kept per output. */
export const MAX_OUTPUT_LINES = 256;
/** Reused by every call (a fingerprint is computed start to end, never interleaved): no garbage per output. */
const SCRATCH_LINES = new Set<number>();
const SCRATCH_SHAPES = new Set<number>();
/** Echo tokens shorter than this are never masked (`-n`, `cd`). */
const MIN_ECHO_TOKEN = 3;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const DIGITS_ONLY = 0x2f2f2f2f;
const ECHOED = 0x5e5e5e5e;

function fnv(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}
/** A number after `pid` is a process id: volatile. */
const PID_LOWER = fnv('pid');
const PID_UPPER = fnv('PID');

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
}

/** Character classes of the ASCII range, looked up once per character (no branch chain per character). */
const SEPARATOR = 1;
const DIGIT = 2;
const LETTER = 4;
/** A letter that is not a hex digit (`g`..`z`). */
const NON_HEX_LETTER = 8;
/** Token separators: newline, space, tab, `\r`, quotes, backquote and `: , ( ) [ ] ; { } < >`. */
const SEPARATORS = '\n \t\r"\'`:,()[];{}<>';
const ASCII_CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const lower = code | 32;
  if (SEPARATORS.includes(String.fromCharCode(code))) ASCII_CLASS[code] = SEPARATOR;
  else if (code >= 48 && code <= 57) ASCII_CLASS[code] = DIGIT;
  else if (lower >= 97 && lower <= 122) ASCII_CLASS[code] = lower > 102 ? LETTER | NON_HEX_LETTER : LETTER;
}

/** A well-mixed 32-bit value (murmur3's finaliser), so that sums of line hashes do not cancel. */
export function mix32(h: number): number {
  let x = h >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * Calls `onToken(raw, masked, length)` for every token of `text[from, to)` and `onLine()` after each
 * line. `raw` hashes every character; `masked` is 0 for a volatile token (see the module comment)
 * and, when `dropDigits`, leaves digits out of the others.
 */
function tokenise(
  text: string,
  from: number,
  to: number,
  dropDigits: boolean,
  onToken: (raw: number, masked: number, length: number, numeric: boolean) => void,
  onLine: () => void,
): void {
  let first = true;
  let afterColon = false;
  let afterPid = false;
  let raw = FNV_OFFSET;
  let masked = FNV_OFFSET;
  let length = 0;
  let letters = 0;
  let digits = 0;
  let nonHex = 0;
  let leadingDigit = false;
  for (let i = from; i <= to; i++) {
    const code = i < to ? text.charCodeAt(i) : 10;
    // Beyond ASCII every character is a letter that is not a hex digit.
    const kind = code < 128 ? (ASCII_CLASS[code] as number) : LETTER | NON_HEX_LETTER;
    if (kind === SEPARATOR) {
      if (length > 0) {
        const numeric = letters === 0;
        const volatile =
          (numeric && (first || afterColon || afterPid || code === 58)) ||
          (leadingDigit && !numeric && letters <= 3) ||
          (digits > 0 && nonHex === 0 && length >= 8) ||
          (leadingDigit && length > 2 && nonHex === 1 && (text.charCodeAt(i - length + 1) | 32) === 120);
        onToken(raw >>> 0, volatile ? 0 : masked >>> 0, length, numeric);
        first = false;
        afterPid = length === 3 && (raw >>> 0 === PID_LOWER || raw >>> 0 === PID_UPPER);
      }
      if (code !== 32 && code !== 9) afterColon = code === 58;
      raw = FNV_OFFSET;
      masked = FNV_OFFSET;
      length = 0;
      letters = 0;
      digits = 0;
      nonHex = 0;
      if (code === 10) {
        first = true;
        afterColon = false;
        onLine();
      }
      continue;
    }
    raw = Math.imul(raw ^ code, FNV_PRIME);
    if (length === 0) leadingDigit = kind === DIGIT;
    length++;
    if (kind === DIGIT) {
      digits++;
      if (!dropDigits) masked = Math.imul(masked ^ code, FNV_PRIME);
      continue;
    }
    masked = Math.imul(masked ^ code, FNV_PRIME);
    if (kind & LETTER) letters++;
    if (kind !== LETTER) nonHex++;
  }
}

/**
 * Raw hashes of the tokens of an action's text (at least 3 characters long): what an output may echo.
 * @example echoTokens('search_dir "foo"').size; // 2
 */
export function echoTokens(actionText: string): Set<number> {
  const tokens = new Set<number>();
  const to = Math.min(actionText.length, OUTPUT_HEAD);
  tokenise(
    actionText,
    0,
    to,
    false,
    (raw, _masked, length) => {
      if (length >= MIN_ECHO_TOKEN) tokens.add(raw);
    },
    () => {},
  );
  return tokens;
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
  return (
    echo.size > 0 &&
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
 * lines) the tokens of `echo` masked.
 * @example fingerprint('a.py:12 failed', new Set()).key === fingerprint('a.py:40 failed', new Set()).key; // true
 * @example fingerprint('count=1', new Set()).key === fingerprint('count=2', new Set()).key; // false
 */
export function fingerprint(output: string, echo: ReadonlySet<number>): Fingerprint {
  const long = output.length > OUTPUT_HEAD + OUTPUT_TAIL;
  const ranges: Array<[number, number]> = long
    ? [
        [0, OUTPUT_HEAD],
        [output.length - OUTPUT_TAIL, output.length],
      ]
    : [[0, output.length]];
  const maskEcho = masksEcho(output, echo);
  const seenLines = SCRATCH_LINES;
  const seenShapes = SCRATCH_SHAPES;
  seenLines.clear();
  seenShapes.clear();
  const lines: number[] = [];
  const shapes: number[] = [];
  let key = 0;
  let duplicates = 0;
  let line = FNV_OFFSET;
  let shape = FNV_OFFSET;
  // The same line with no echo masking: used when every token of the line is echoed (the answer
  // itself, such as a module name printed back), where masking would leave nothing.
  let plainLine = FNV_OFFSET;
  let plainShape = FNV_OFFSET;
  let tokens = 0;
  let ownTokens = 0;
  let lastEchoed = false;
  const onToken = (raw: number, masked: number, _length: number, numeric: boolean) => {
    const plain = masked === 0 ? DIGITS_ONLY : masked;
    const plainShapePart = numeric ? DIGITS_ONLY : plain;
    const echoed = maskEcho && echo.has(raw);
    // A run of echoed words is one placeholder: a search of two words and one of three say the same.
    if (!(echoed && lastEchoed)) {
      line = Math.imul(line ^ (echoed ? ECHOED : plain), FNV_PRIME);
      shape = Math.imul(shape ^ (echoed ? ECHOED : plainShapePart), FNV_PRIME);
    }
    lastEchoed = echoed;
    plainLine = Math.imul(plainLine ^ plain, FNV_PRIME);
    plainShape = Math.imul(plainShape ^ plainShapePart, FNV_PRIME);
    tokens++;
    if (!echoed) ownTokens++;
  };
  const onLine = () => {
    if (tokens > 0) {
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
    line = FNV_OFFSET;
    shape = FNV_OFFSET;
    plainLine = FNV_OFFSET;
    plainShape = FNV_OFFSET;
    tokens = 0;
    ownTokens = 0;
    lastEchoed = false;
  };
  for (const [from, to] of ranges) tokenise(output, from, to, false, onToken, onLine);
  return { lines, shapes, key, duplicates };
}

/**
 * The fingerprint of one line of text, every digit left out and the tokens of `echo` masked: the class
 * of an error line, equal for `bash: cd: fastjson: No such file` after `cd fastjson` and after `cd fastxml`.
 */
export function lineClass(line: string, echo: ReadonlySet<number>): number {
  let hash = FNV_OFFSET;
  tokenise(
    line,
    0,
    Math.min(line.length, OUTPUT_HEAD),
    true,
    (raw, masked, _length, numeric) => {
      const part = echo.has(raw) ? ECHOED : masked === 0 || numeric ? DIGITS_ONLY : masked;
      hash = Math.imul(hash ^ part, FNV_PRIME);
    },
    () => {
      hash = Math.imul(hash ^ 10, FNV_PRIME);
    },
  );
  return mix32(hash);
}
