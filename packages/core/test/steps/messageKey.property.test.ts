import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBlankMessage, messageKey } from '../../src/steps/keys/stepKeys.js';

/** `messageKey` as first written: a chain of comparisons per character. */
function oracleMessageKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  let kept = 0;
  let space = false;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) continue;
    if (code === 32 || code === 9 || code === 10 || code === 13) {
      space = kept > 0;
      continue;
    }
    if (space) {
      a = Math.imul(a ^ 32, 0x01000193);
      b = Math.imul(b ^ 32, 0x5bd1e995);
      space = false;
    }
    if (code >= 65 && code <= 90) code += 32;
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    kept++;
  }
  if (kept === 0) return '';
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}.${kept}`;
}

describe('messageKey against its form as first written', () => {
  it('gives the same key for any text', () => {
    const text = fc
      .array(
        fc.oneof(
          fc.constantFrom(' ', '\t', '\n', '\r', '\u000b', 'A', 'z', '7', '@', '[', 'é', 'Ω'),
          fc.string(),
        ),
        {
          maxLength: 20,
        },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (value) => {
        expect(messageKey(value)).toBe(oracleMessageKey(value));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('isBlankMessage', () => {
  it('is true exactly when the message key is empty', () => {
    const text = fc
      .array(
        fc.oneof(fc.constantFrom(' ', '\t', '\n', '\r', '\u000b', '\u00a0', '0', '9', 'a'), fc.string()),
        {
          maxLength: 12,
        },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (value) => {
        expect(isBlankMessage(value)).toBe(messageKey(value) === '');
      }),
      { numRuns: 5000 },
    );
    expect(isBlankMessage(' 12\n\t\r')).toBe(true);
    expect(isBlankMessage('12 x')).toBe(false);
  });
});
