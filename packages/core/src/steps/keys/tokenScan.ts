/**
 * The tokens and line ends of a text, and which tokens are volatile: the one place these rules are
 * written. A token is a run of characters between spaces, quotes and `: , ( ) [ ] ; { } < >`,
 * hashed with FNV-1a. {@link scanTokens} writes a range's tokens into shared typed arrays that each
 * reader (`fingerprint.ts`) then walks: the scan is one tight loop with its state in locals (no
 * object written per token, nothing allocated), which is most of what a fingerprint costs.
 * A character here is a UTF-16 code unit (as `text.length` counts): a character beyond the Basic
 * Multilingual Plane is two letters of its token, in its length and in its letter count alike.
 */

/** FNV-1a's 32-bit offset basis. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a's 32-bit prime. */
export const FNV_PRIME = 0x01000193;

/** {@link TOKEN_FLAGS}: the entry is the end of a line (also written at the end of the range), not a token. */
export const LINE_END = 1;
/** {@link TOKEN_FLAGS}: the token has no letter. */
export const NUMERIC = 2;
/**
 * {@link TOKEN_FLAGS}: the token is volatile: a number at the start of a line, after a `:` (glued or
 * not) or after `pid`, a number with a short unit (`0.5s`), a hex address or id.
 */
export const VOLATILE = 4;
/**
 * {@link TOKEN_FLAGS}: the token is noise: like {@link VOLATILE}, but a number at the start of a line
 * or after `key: ` is kept (a count), and a number after `line` is noise (a source location).
 */
export const NOISE = 8;

/** Most entries one scan writes: a token or a line end per character at most, and the range's last line end. */
export const MAX_SCAN = 8192;
/** Each entry's FNV-1a hash of the token's characters (as int32: V8 keeps them unboxed); 0 for a line end. */
export const TOKEN_HASHES = new Int32Array(MAX_SCAN);
/**
 * Each entry's flags ({@link LINE_END}, else {@link NUMERIC}, {@link VOLATILE}, {@link NOISE}) and,
 * from bit {@link LENGTH_SHIFT} on, the token's length in characters (0 for a line end).
 */
export const TOKEN_FLAGS = new Int32Array(MAX_SCAN);
/** Where {@link TOKEN_FLAGS} keeps the token's length: `flags >> LENGTH_SHIFT`. */
export const LENGTH_SHIFT = 4;
/** The flag bits of a {@link TOKEN_FLAGS} entry, its length left out. */
export const FLAG_BITS = (1 << LENGTH_SHIFT) - 1;
/** Each entry's end (exclusive) in the text. */
export const TOKEN_ENDS = new Int32Array(MAX_SCAN);

/** Character classes of the ASCII range, looked up once per character (no branch chain per character). */
const SEPARATOR = 1;
const DIGIT = 2;
const LETTER = 4;
/** A letter that is not a hex digit (`g`..`z`); every character beyond ASCII is one. */
const NON_HEX_LETTER = 8;
/** Neither a separator, a digit nor a letter (`.`, `-`, `=`, `/`). */
const OTHER = 16;
const NON_ASCII = LETTER | NON_HEX_LETTER;
/** Token separators: newline, space, tab, `\r`, quotes, backquote and `: , ( ) [ ] ; { } < >`. */
const SEPARATORS = '\n \t\r"\'`:,()[];{}<>';
const ASCII_CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const lower = code | 32;
  if (SEPARATORS.includes(String.fromCharCode(code))) ASCII_CLASS[code] = SEPARATOR;
  else if (code >= 48 && code <= 57) ASCII_CLASS[code] = DIGIT;
  else if (lower >= 97 && lower <= 122) ASCII_CLASS[code] = lower > 102 ? LETTER | NON_HEX_LETTER : LETTER;
  else ASCII_CLASS[code] = OTHER;
}

function classOf(code: number): number {
  return code < 128 ? (ASCII_CLASS[code] as number) : NON_ASCII;
}

/** Whether `code` ends a token (see {@link scanTokens}: spaces, quotes and `: , ( ) [ ] ; { } < >`). */
export function isSeparator(code: number): boolean {
  return code < 128 && ASCII_CLASS[code] === SEPARATOR;
}

/** Whether `code` is an ASCII digit. */
export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** FNV-1a of a whole string, as uint32. */
function fnv(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}
/** {@link FNV_OFFSET} as int32, so that the scan's hash stays a small integer from its first character on. */
const OFFSET = FNV_OFFSET | 0;
/** A number after `pid` is a process id: volatile. */
const PID = fnv('pid') | 0;
const PID_UPPER = fnv('PID') | 0;
/** A number after `line` is a source location: noise in a probe's result (`File "a.py", line 12`). */
const LINE_WORD = fnv('line') | 0;
const LINE_WORD_UPPER = fnv('Line') | 0;

/**
 * Whether a token that starts with a digit and has letters is volatile by its letters: a short unit
 * (`0.5s`, `12ms`: at most 3 letters) or a hex address (`0x7f3a`: `x` second, no other character
 * that is not a hex digit). Counted here, off the hot loop: few tokens start with a digit.
 */
function unitOrAddress(text: string, from: number, to: number): boolean {
  let letters = 0;
  let nonHex = 0;
  for (let i = from; i < to; i++) {
    const kind = classOf(text.charCodeAt(i));
    if (kind & LETTER) letters++;
    if (kind !== DIGIT && kind !== LETTER) nonHex++;
  }
  return letters <= 3 || (to - from > 2 && nonHex === 1 && (text.charCodeAt(from + 1) | 32) === 120);
}

/**
 * Reads `text[from, to)` (at most {@link MAX_SCAN} − 1 characters) and writes its tokens and line
 * ends, in order, into {@link TOKEN_HASHES}, {@link TOKEN_FLAGS} and {@link TOKEN_ENDS}; a line end
 * follows every line, the last one too. Returns the number of entries written. The arrays are
 * shared: read them before the next scan.
 * @example const n = scanTokens('a.py:12 failed', 0, 14); // 4: `a.py`, `12` (volatile), `failed`, the line end
 */
export function scanTokens(text: string, from: number, to: number): number {
  if (to - from >= MAX_SCAN) throw new RangeError(`scanTokens reads at most ${MAX_SCAN - 1} characters`);
  let entries = 0;
  let first = true;
  let afterColon = false;
  let colonGlued = false;
  let afterPid = false;
  let afterLine = false;
  let i = from;
  for (;;) {
    // One token: the characters up to the next separator (the end of the range reads as a newline).
    const start = i;
    let hash = OFFSET;
    let classes = 0;
    let code = 10;
    while (i < to) {
      const next = text.charCodeAt(i);
      const kind = next < 128 ? (ASCII_CLASS[next] as number) : NON_ASCII;
      if (kind === SEPARATOR) {
        code = next;
        break;
      }
      hash = Math.imul(hash ^ next, FNV_PRIME);
      classes |= kind;
      i++;
    }
    const length = i - start;
    if (length > 0) {
      const numeric = (classes & LETTER) === 0;
      const alwaysVolatile =
        (numeric && (colonGlued || afterPid || code === 58)) ||
        (!numeric &&
          (classes & DIGIT) !== 0 &&
          isDigit(text.charCodeAt(start)) &&
          unitOrAddress(text, start, i)) ||
        // A long run of hex digits with at least one digit: an id or a hash.
        ((classes & DIGIT) !== 0 && (classes & (NON_HEX_LETTER | OTHER)) === 0 && length >= 8);
      TOKEN_HASHES[entries] = hash;
      TOKEN_ENDS[entries] = i;
      TOKEN_FLAGS[entries++] =
        (length << LENGTH_SHIFT) |
        (numeric ? NUMERIC : 0) |
        (alwaysVolatile || (numeric && (first || afterColon)) ? VOLATILE : 0) |
        (alwaysVolatile || (numeric && afterLine) ? NOISE : 0);
      first = false;
      afterPid = length === 3 && (hash === PID || hash === PID_UPPER);
      afterLine = length === 4 && (hash === LINE_WORD || hash === LINE_WORD_UPPER);
    }
    if (code !== 32 && code !== 9) afterColon = code === 58;
    colonGlued = code === 58;
    if (code === 10) {
      first = true;
      afterColon = false;
      TOKEN_HASHES[entries] = 0;
      TOKEN_ENDS[entries] = i;
      TOKEN_FLAGS[entries++] = LINE_END;
    }
    if (i >= to) return entries;
    i++;
  }
}
