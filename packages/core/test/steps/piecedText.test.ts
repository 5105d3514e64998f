import { describe, expect, it } from 'vitest';
import { GeminiStreamJsonParser } from '../../src/translation/geminiCli/GeminiStreamJsonParser.js';
import { PIECED_TEXT_HALF, PiecedText } from '../../src/translation/piecedText.js';

describe('a parser holds the same memory however long the stream (issue 32, item 5)', () => {
  it('keeps a text sent in pieces as it is up to its bound', () => {
    const text = new PiecedText();
    for (const piece of ['Hel', 'lo ', 'world']) text.add(piece);
    expect(text.take()).toBe('Hello world');
    expect(text.take()).toBe('');
  });

  it('keeps the head and tail of a longer text, with the length and a hash of its middle', () => {
    const pieces = (middle: string) => {
      const text = new PiecedText();
      text.add('h'.repeat(PIECED_TEXT_HALF));
      for (let n = 0; n < 1000; n++) text.add(`${middle}${n} `.repeat(100));
      text.add('t'.repeat(PIECED_TEXT_HALF));
      return text.take();
    };
    const long = pieces('piece');
    expect(long.startsWith('h'.repeat(PIECED_TEXT_HALF))).toBe(true);
    expect(long.endsWith('t'.repeat(PIECED_TEXT_HALF))).toBe(true);
    expect(long.length).toBeLessThan(2 * PIECED_TEXT_HALF + 100);
    expect(long).toMatch(/\n\[… \d+ characters, fnv [0-9a-f]+ …\]\n/);
    expect(pieces('piece')).toBe(long);
    expect(pieces('pieca')).not.toBe(long); // a change in the middle is still seen
  });

  it('gives a message of a million delta pieces within the bound', () => {
    const parser = new GeminiStreamJsonParser();
    const piece = JSON.stringify({ type: 'message', role: 'assistant', content: 'more text ', delta: true });
    for (let n = 0; n < 1_000_000; n++) parser.push(piece);
    const [message] = parser.push('{"type":"result","status":"success"}');
    expect(message?.type).toBe('message');
    expect((message as { text: string }).text.length).toBeLessThan(2 * PIECED_TEXT_HALF + 100);
  });
});
