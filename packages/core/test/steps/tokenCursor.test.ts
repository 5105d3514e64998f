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
