import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { END, LINE, TOKEN, TokenCursor } from '../../src/steps/tokenCursor.js';

function events(text: string, dropDigits = false): string[] {
  const cursor = new TokenCursor().start(text, 0, text.length, dropDigits);
  const seen: string[] = [];
  for (let kind = cursor.next(); kind !== END; kind = cursor.next()) {
    if (kind === LINE) seen.push('\\n');
    else if (kind === TOKEN)
      seen.push(`${cursor.length}${cursor.masked === 0 ? 'v' : ''}${cursor.numeric ? 'n' : ''}`);
  }
  return seen;
}

describe('TokenCursor', () => {
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

  it('hashes a token the same with or without the digits dropped only when it has none', () => {
    const with1 = new TokenCursor().start('file1', 0, 5, true);
    with1.next();
    const with2 = new TokenCursor().start('file2', 0, 5, true);
    with2.next();
    expect(with1.masked).toBe(with2.masked);
    expect(with1.raw).not.toBe(with2.raw);
  });

  it('reads only the range it is given', () => {
    const text = 'skip me\nread this';
    const cursor = new TokenCursor().start(text, 8, text.length, false);
    expect(cursor.next()).toBe(TOKEN);
    expect(cursor.length).toBe(4);
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
      const kinds = [...token].map((c) => classOf(c.charCodeAt(0)));
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

function cursorEvents(text: string, dropDigits: boolean): string[] {
  const cursor = new TokenCursor().start(text, 0, text.length, dropDigits);
  const seen: string[] = [];
  for (let kind = cursor.next(); kind !== END; kind = cursor.next()) {
    if (kind === LINE) seen.push('\\n');
    else seen.push(`${cursor.raw}/${cursor.masked}/${cursor.exact}/${cursor.length}/${cursor.numeric}`);
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

describe('TokenCursor against the cursor as first written', () => {
  it('gives the same events, hashes and masks', () => {
    const textArb = fc
      .array(fc.oneof(fc.constantFrom(...TOKEN_FRAGMENTS), fc.string({ maxLength: 4 })), { maxLength: 30 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(textArb, fc.boolean(), (text, dropDigits) => {
        expect(cursorEvents(text, dropDigits)).toEqual(oracleEvents(text, dropDigits));
      }),
      { numRuns: 5000 },
    );
  });
});
