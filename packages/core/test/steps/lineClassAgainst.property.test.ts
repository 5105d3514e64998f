import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { echoTokens, lineClass, lineClassAgainst, OUTPUT_HEAD } from '../../src/steps/keys/fingerprint.js';

/** Words, separators and digits, often shared between the line and the action's text. */
const WORDS = [
  'old_str',
  'return',
  'cache',
  'if',
  'isinstance(val,',
  'x1',
  '`',
  '"',
  ':',
  ' ',
  '\\n',
  'a.py',
  '12',
  'ééé',
];
const textArb = fc
  .array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 6 })), { maxLength: 40 })
  .map((parts) => parts.join(''));

describe('lineClassAgainst', () => {
  it("is lineClass with the action's tokens as the echo, looked up instead of hashed", () => {
    fc.assert(
      fc.property(textArb, textArb, (line, action) => {
        expect(lineClassAgainst(line, action)).toBe(lineClass(line, echoTokens(action)));
      }),
      { numRuns: 2000 },
    );
  });

  it("reads the action's text as far as echoTokens does", () => {
    const line = 'No replacement was performed, old_str `faraway_name` did not appear';
    const action = `${'x'.repeat(OUTPUT_HEAD - 5)} faraway_name`;
    expect(lineClassAgainst(line, action)).toBe(lineClass(line, echoTokens(action)));
    expect(lineClassAgainst(line, 'faraway_name')).not.toBe(lineClassAgainst(line, 'other'));
  });
});
