import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shorten } from '../../src/steps/keys/shorten.js';

/** `shorten` as first written: the whole text escaped, then cut. */
function oracleShorten(text: string, max = 200): string {
  const escaped = text.replaceAll('\u0000', '\\u0000');
  if (escaped.length <= max) return escaped;
  const half = Math.floor((max - 3) / 2);
  return `${escaped.slice(0, half)}...${escaped.slice(escaped.length - half)}`;
}

describe('shorten against the text escaped whole, then cut', () => {
  it('gives the same text, NUL characters anywhere, any length around the bound', () => {
    const text = fc
      .array(fc.oneof(fc.constant('\u0000'), fc.string({ maxLength: 40 })), { maxLength: 20 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.integer({ min: 3, max: 120 }), (value, max) => {
        expect(shorten(value, max)).toBe(oracleShorten(value, max));
        expect(shorten(value)).toBe(oracleShorten(value));
      }),
      { numRuns: 5000 },
    );
  });

  it('escapes a NUL only where the text is kept', () => {
    expect(shorten(`ab\u0000${'x'.repeat(300)}\u0000cd`, 23)).toBe('ab\\u0000xx...xx\\u0000cd');
  });
});
