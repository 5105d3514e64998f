/**
 * The tokens and line ends of a text, read one at a time without allocating: a token is a run of
 * characters between spaces, quotes and `: , ( ) [ ] ; { } < >`, hashed twice (FNV-1a): raw, and
 * masked (0 for a volatile token: see `fingerprint.ts`). One cursor serves every reader of tokens,
 * so the scan is written once and inlined into each.
 */

/** FNV-1a's 32-bit offset basis. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a's 32-bit prime. */
export const FNV_PRIME = 0x01000193;
/** {@link TokenCursor.next}: the end of the range. */
export const END = 0;
/** {@link TokenCursor.next}: a token (its fields are set). */
export const TOKEN = 1;
/** {@link TokenCursor.next}: the end of a line (also at the end of the range). */
export const LINE = 2;

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

function fnv(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}
/** A number after `pid` is a process id: volatile. */
const PID = fnv('pid');
const PID_UPPER = fnv('PID');
/** A number after `line` is a source location: noise in a probe's result (`File "a.py", line 12`). */
const LINE_WORD = fnv('line');
const LINE_WORD_UPPER = fnv('Line');

/**
 * Reads `text[from, to)` token by token: `start`, then `next()` until {@link END}.
 * @example const c = new TokenCursor().start('a b', 0, 3, false); c.next(); // TOKEN
 */
export class TokenCursor {
  /** FNV-1a hash of every character of the token. */
  raw = 0;
  /** Hash of the token with digits left out when `dropDigits`; 0 when the token is volatile. */
  masked = 0;
  /**
   * Like `masked`, but 0 only for noise: a number after `line` or `pid`, glued to a `:` (`a.py:12`,
   * `12:30`), with a short unit (`0.5s`), a hex address or id. A count (`12 failed`, `key: 1`) is kept.
   */
  exact = 0;
  /** Characters in the token. */
  length = 0;
  /** Whether the token has no letter. */
  numeric = false;
  private text = '';
  private at = 0;
  private to = 0;
  private dropDigits = false;
  private first = true;
  private afterColon = false;
  private colonGlued = false;
  private afterVolatileWord = false;
  private afterLineWord = false;
  private lineDue = false;

  /** Starts reading `text[from, to)`; returns the cursor. */
  start(text: string, from: number, to: number, dropDigits: boolean): this {
    this.text = text;
    this.at = from;
    this.to = to;
    this.dropDigits = dropDigits;
    this.first = true;
    this.afterColon = false;
    this.colonGlued = false;
    this.afterVolatileWord = false;
    this.afterLineWord = false;
    this.lineDue = false;
    return this;
  }

  /** The next event: {@link TOKEN}, {@link LINE} or {@link END}. */
  next(): number {
    if (this.lineDue) {
      this.lineDue = false;
      return LINE;
    }
    const text = this.text;
    const to = this.to;
    // Without `dropDigits` the masked hash is the raw one: it is only hashed apart when digits are dropped.
    const dropDigits = this.dropDigits;
    let raw = FNV_OFFSET;
    let masked = FNV_OFFSET;
    let length = 0;
    let letters = 0;
    let digits = 0;
    let nonHex = 0;
    let leadingDigit = false;
    for (let i = this.at; i <= to; i++) {
      const code = i < to ? text.charCodeAt(i) : 10;
      // Beyond ASCII every character is a letter that is not a hex digit.
      const kind = code < 128 ? (ASCII_CLASS[code] as number) : LETTER | NON_HEX_LETTER;
      if (kind !== SEPARATOR) {
        raw = Math.imul(raw ^ code, FNV_PRIME);
        if (length === 0) leadingDigit = kind === DIGIT;
        length++;
        if (kind === DIGIT) {
          digits++;
          continue;
        }
        if (dropDigits) masked = Math.imul(masked ^ code, FNV_PRIME);
        if (kind & LETTER) letters++;
        if (kind !== LETTER) nonHex++;
        continue;
      }
      this.at = i + 1;
      const token = length > 0;
      if (token) {
        const numeric = letters === 0;
        const alwaysVolatile =
          (numeric && (this.colonGlued || this.afterVolatileWord || code === 58)) ||
          (leadingDigit && !numeric && letters <= 3) ||
          (digits > 0 && nonHex === 0 && length >= 8) ||
          (leadingDigit && length > 2 && nonHex === 1 && (text.charCodeAt(i - length + 1) | 32) === 120);
        const noise = alwaysVolatile || (numeric && this.afterLineWord);
        const volatile = alwaysVolatile || (numeric && (this.first || this.afterColon));
        this.raw = raw >>> 0;
        const hash = dropDigits ? masked >>> 0 : raw >>> 0;
        this.masked = volatile ? 0 : hash;
        this.exact = noise ? 0 : hash;
        this.length = length;
        this.numeric = numeric;
        this.first = false;
        // Compared, not looked up in a Set: a hash above 2^31 passed to a Set is a heap number per token.
        const word = raw >>> 0;
        this.afterVolatileWord = length === 3 && (word === PID || word === PID_UPPER);
        this.afterLineWord = length === 4 && (word === LINE_WORD || word === LINE_WORD_UPPER);
      }
      if (code !== 32 && code !== 9) this.afterColon = code === 58;
      this.colonGlued = code === 58;
      if (code === 10) {
        this.first = true;
        this.afterColon = false;
        if (!token) return LINE;
        this.lineDue = true;
      }
      if (token) return TOKEN;
    }
    this.at = to + 1;
    return END;
  }
}
