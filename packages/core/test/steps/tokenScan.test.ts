import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  echoedTokens,
  echoTokens,
  exactHash,
  fingerprint,
  lineClass,
  mix32,
} from '../../src/steps/keys/fingerprint.js';
import {
  LENGTH_SHIFT,
  LINE_END,
  NOISE,
  NUMERIC,
  scanTokens,
  TOKEN_FLAGS,
  TOKEN_HASHES,
  VOLATILE,
} from '../../src/steps/keys/tokenScan.js';

function events(text: string): string[] {
  const entries = scanTokens(text, 0, text.length);
  const seen: string[] = [];
  for (let t = 0; t < entries; t++) {
    const flags = TOKEN_FLAGS[t] as number;
    if (flags === LINE_END) seen.push('\\n');
    else seen.push(`${flags >> LENGTH_SHIFT}${flags & VOLATILE ? 'v' : ''}${flags & NUMERIC ? 'n' : ''}`);
  }
  return seen;
}

describe('scanTokens', () => {
  it('gives tokens between separators and a line end after each line and at the end', () => {
    expect(events('a.py:12 failed\n(ok)')).toEqual(['4', '2vn', '6', '\\n', '2', '\\n']);
  });

  it('marks volatile tokens: a leading number, a number after pid, a duration, a hex id', () => {
    expect(events('12 pid 345 took 0.5s at 0x7f3a id 3f9a2c1d count=404')).toEqual([
      '2vn',
      '3',
      '3vn',
      '4',
      '4v',
      '2',
      '6v',
      '2',
      '8v',
      '9',
      '\\n',
    ]);
  });

  it('counts a token by UTF-16 unit: a character beyond the Basic Multilingual Plane is two letters', () => {
    // `0A😀`: 3 letters, a short unit (volatile); `0AA😀`: 4 letters, a word
    expect(events('0A\u{1F600} 0AA\u{1F600}')).toEqual(['4v', '5', '\\n']);
  });

  it('reads only the range it is given', () => {
    const text = 'skip me\nread this';
    expect(scanTokens(text, 8, text.length)).toBe(3);
    expect((TOKEN_FLAGS[0] as number) >> LENGTH_SHIFT).toBe(4);
  });

  it('refuses a range longer than its arrays', () => {
    expect(() => scanTokens('x'.repeat(9000), 0, 9000)).toThrow(RangeError);
  });
});

/**
 * The cursor as it was written first (every count kept per character), as an oracle: each event
 * with its token's fields, for `text` read whole.
 */
function oracleEvents(text: string, dropDigits: boolean): string[] {
  const classOf = (code: number): number => {
    if (code >= 128) return 12;
    if ('\n \t\r"\'`:,()[];{}<>'.includes(String.fromCharCode(code))) return 1;
    if (code >= 48 && code <= 57) return 2;
    const lower = code | 32;
    if (lower >= 97 && lower <= 122) return lower > 102 ? 12 : 4;
    return 0;
  };
  const fnv = (word: string): number => {
    let hash = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
    return hash >>> 0;
  };
  const events: string[] = [];
  let first = true;
  let afterColon = false;
  let colonGlued = false;
  let afterPid = false;
  let afterLine = false;
  let token = '';
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 10;
    if (classOf(code) !== 1) {
      token += String.fromCharCode(code);
      continue;
    }
    if (token !== '') {
      // by UTF-16 unit, as the scan counts (an astral character is two letters), not by code point
      const kinds = Array.from({ length: token.length }, (_, k) => classOf(token.charCodeAt(k)));
      const letters = kinds.filter((k) => (k & 4) !== 0).length;
      const digits = kinds.filter((k) => k === 2).length;
      const nonHex = kinds.filter((k) => k !== 2 && k !== 4).length;
      const leadingDigit = kinds[0] === 2;
      const numeric = letters === 0;
      const alwaysVolatile =
        (numeric && (colonGlued || afterPid || code === 58)) ||
        (leadingDigit && !numeric && letters <= 3) ||
        (digits > 0 && nonHex === 0 && token.length >= 8) ||
        (leadingDigit && token.length > 2 && nonHex === 1 && (token.charCodeAt(1) | 32) === 120);
      const hash = fnv(dropDigits ? token.replace(/[0-9]/g, '') : token);
      const masked = alwaysVolatile || (numeric && (first || afterColon)) ? 0 : hash;
      const exact = alwaysVolatile || (numeric && afterLine) ? 0 : hash;
      events.push(`${fnv(token)}/${masked}/${exact}/${token.length}/${numeric}`);
      first = false;
      afterPid = token === 'pid' || token === 'PID';
      afterLine = token === 'line' || token === 'Line';
    }
    if (code !== 32 && code !== 9) afterColon = code === 58;
    colonGlued = code === 58;
    if (code === 10) {
      first = true;
      afterColon = false;
      events.push('\\n');
    }
    token = '';
  }
  return events;
}

/** {@link scanTokens}'s entries in the oracle's form (`masked` and `exact` are 0 for a masked token). */
function scanEvents(text: string): string[] {
  const entries = scanTokens(text, 0, text.length);
  const seen: string[] = [];
  for (let t = 0; t < entries; t++) {
    const flags = TOKEN_FLAGS[t] as number;
    const hash = (TOKEN_HASHES[t] as number) >>> 0;
    if (flags === LINE_END) seen.push('\\n');
    else
      seen.push(
        `${hash}/${flags & VOLATILE ? 0 : hash}/${flags & NOISE ? 0 : hash}/${flags >> LENGTH_SHIFT}/${(flags & NUMERIC) !== 0}`,
      );
  }
  return seen;
}

/** Pieces of tokens that the volatile rules tell apart. */
const TOKEN_FRAGMENTS = [
  '0x',
  '0X',
  '7f',
  '12',
  '3',
  'pid',
  'PID',
  'line',
  'Line',
  'ms',
  'abc',
  'g',
  'é',
  // beyond the Basic Multilingual Plane: two UTF-16 units
  '\u{1F600}',
  '\u{1D538}',
  '.',
  '-',
  ':',
  ' ',
  '\t',
  '\n',
  '(',
  '=',
  'x',
];

const textArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(...TOKEN_FRAGMENTS),
      fc.string({ maxLength: 4 }),
      // any code point, most of them astral
      fc.string({ unit: 'binary', maxLength: 2 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

describe('scanTokens against the token cursor as first written', () => {
  it('gives the same events, hashes and masks', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(scanEvents(text)).toEqual(oracleEvents(text, false));
      }),
      { numRuns: 5000 },
    );
  });
});

interface OracleToken {
  raw: number;
  masked: number;
  exact: number;
  numeric: boolean;
}

/** The oracle's events of `text[from, to)` as tokens (`null` for a line end). */
function oracleTokens(text: string, dropDigits: boolean): Array<OracleToken | null> {
  return oracleEvents(text, dropDigits).map((event) => {
    if (event === '\\n') return null;
    const [raw, masked, exact, , numeric] = event.split('/');
    return { raw: Number(raw), masked: Number(masked), exact: Number(exact), numeric: numeric === 'true' };
  });
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const DIGITS_ONLY = 0x2f2f2f2f;
const ECHOED = 0x5e5e5e5e;

/** `fingerprint` as it was written over the token cursor (a short text: no head and tail, no line limit reached). */
function oracleFingerprint(output: string, echo: ReadonlySet<number>, withResult: boolean) {
  const maskEcho = echo.size > 0 && output.split('\n').length <= 8;
  const lines: number[] = [];
  const shapes: number[] = [];
  let key = 0;
  let duplicates = 0;
  let result = FNV_OFFSET;
  let exactLine = FNV_OFFSET;
  let line = FNV_OFFSET;
  let shape = FNV_OFFSET;
  let plainLine = FNV_OFFSET;
  let plainShape = FNV_OFFSET;
  let tokens = 0;
  let ownTokens = 0;
  let lastEchoed = false;
  for (const token of oracleTokens(output, false)) {
    if (token !== null) {
      const plain = token.masked === 0 ? DIGITS_ONLY : token.masked;
      const plainShapePart = token.numeric ? DIGITS_ONLY : plain;
      const echoed = maskEcho && echo.has(token.raw | 0);
      if (!(echoed && lastEchoed)) {
        if (withResult) {
          const exact = token.exact === 0 ? DIGITS_ONLY : token.exact;
          exactLine = Math.imul(exactLine ^ (echoed ? ECHOED : exact), FNV_PRIME);
        }
        line = Math.imul(line ^ (echoed ? ECHOED : plain), FNV_PRIME);
        shape = Math.imul(shape ^ (echoed ? ECHOED : plainShapePart), FNV_PRIME);
      }
      lastEchoed = echoed;
      plainLine = Math.imul(plainLine ^ plain, FNV_PRIME);
      plainShape = Math.imul(plainShape ^ plainShapePart, FNV_PRIME);
      tokens++;
      if (!echoed) ownTokens++;
      continue;
    }
    if (tokens > 0) {
      if (withResult) result = mix32(Math.imul(result, 31) + exactLine);
      const hash = mix32(ownTokens > 0 ? line : plainLine);
      if (!lines.includes(hash)) lines.push(hash);
      const shapeHash = mix32(ownTokens > 0 ? shape : plainShape);
      if (shapes.includes(shapeHash)) duplicates++;
      else {
        shapes.push(shapeHash);
        key = (key + shapeHash) >>> 0;
      }
    }
    line = exactLine = shape = plainLine = plainShape = FNV_OFFSET;
    tokens = 0;
    ownTokens = 0;
    lastEchoed = false;
  }
  return { lines, shapes, key, duplicates, result: withResult ? result >>> 0 || 1 : 0 };
}

function oracleLineClass(text: string, echo: ReadonlySet<number>): number {
  let hash = FNV_OFFSET;
  for (const token of oracleTokens(text, true)) {
    const part =
      token === null
        ? 10
        : echo.has(token.raw | 0)
          ? ECHOED
          : token.masked === 0 || token.numeric
            ? DIGITS_ONLY
            : token.masked;
    hash = Math.imul(hash ^ part, FNV_PRIME);
  }
  return mix32(hash);
}

function oracleExactHash(text: string): number {
  let hash = FNV_OFFSET;
  for (const token of oracleTokens(text, false)) {
    hash = Math.imul(hash ^ (token === null ? 10 : token.exact === 0 ? DIGITS_ONLY : token.exact), FNV_PRIME);
  }
  return mix32(hash);
}

describe('the readers of scanTokens against their forms over the token cursor', () => {
  const echoArb = fc.oneof(fc.constant(''), textArb);
  it('fingerprint, echo masked or not, with and without the result', () => {
    fc.assert(
      fc.property(textArb, echoArb, fc.boolean(), (text, action, withResult) => {
        const echo = echoTokens(action);
        expect(fingerprint(text, echo, withResult)).toEqual(oracleFingerprint(text, echo, withResult));
      }),
      { numRuns: 3000 },
    );
  });

  it('lineClass and exactHash', () => {
    fc.assert(
      fc.property(textArb, echoArb, (text, action) => {
        const echo = echoTokens(action);
        expect(lineClass(text, echo)).toBe(oracleLineClass(text, echo));
        expect(exactHash(text)).toBe(oracleExactHash(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('echoTokens: the hashes of the tokens of at least 3 characters', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const expected = new Set<number>();
        for (const event of oracleEvents(text, false)) {
          const [raw, , , length] = event.split('/');
          if (event !== '\\n' && Number(length) >= 3) expected.add(Number(raw) | 0);
        }
        expect(echoTokens(text)).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('echoedTokens against echoTokens', () => {
  it("gives the tokens of a text that the action's token set holds, when it answers", () => {
    let answered = 0;
    fc.assert(
      fc.property(textArb, textArb, fc.nat({ max: 5000 }), (text, words, padding) => {
        // The action's head: its words, then padding past the search's bound, its end cut at 4,000.
        const action = `${words} ${'ab '.repeat(padding)}${words}`;
        const found = echoedTokens(text, action);
        if (found === undefined) return;
        answered++;
        const all = echoTokens(action);
        const expected = new Set<number>();
        for (const event of oracleEvents(text, false)) {
          const [raw, , , length] = event.split('/');
          if (event !== '\\n' && Number(length) >= 3 && all.has(Number(raw) | 0))
            expected.add(Number(raw) | 0);
        }
        expect(new Set(found)).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
    // The search answered often enough for the property to mean something.
    expect(answered).toBeGreaterThan(1000);
  });

  it('finds a token only whole, at the start and end of the text, and leaves the short action to the scan', () => {
    const long = (words: string) => `${words} ${'x'.repeat(400)}`;
    expect([...(echoedTokens('foo.py failed', long('run foo.py')) ?? [])].length).toBe(1);
    expect(echoedTokens('foo.py failed', long('run foo.pyc'))?.size).toBe(0);
    expect(echoedTokens('foo', long('xfoo foox'))?.size).toBe(0);
    expect(echoedTokens('foo', long('foo'))?.size).toBe(1);
    expect(echoedTokens('abcdef', `${'y'.repeat(4000)} abcdef`)?.size).toBe(0);
    expect(echoedTokens('foo', 'cd foo')).toBeUndefined();
  });
});
