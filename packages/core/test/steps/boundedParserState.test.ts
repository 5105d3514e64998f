import { describe, expect, it } from 'vitest';
import { GeminiStreamJsonParser } from '../../src/steps/GeminiStreamJsonParser.js';
import { MAX_OPEN_CALLS, openCall } from '../../src/steps/openCalls.js';
import { PIECED_TEXT_HALF, PiecedText } from '../../src/steps/piecedText.js';

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

  it(`forgets the oldest of more than ${MAX_OPEN_CALLS} calls awaiting a result`, () => {
    const names = new Map<string, string>();
    for (let n = 0; n < 5000; n++) openCall(names, `id${n}`, `tool${n}`);
    expect(names.size).toBe(MAX_OPEN_CALLS);
    expect(names.has('id4999')).toBe(true);
    expect(names.has(`id${5000 - MAX_OPEN_CALLS - 1}`)).toBe(false);
    openCall(names, `id${5000 - MAX_OPEN_CALLS}`, 'again'); // noted again: the newest
    openCall(names, 'new', 'x');
    expect(names.get(`id${5000 - MAX_OPEN_CALLS}`)).toBe('again');
  });
});
