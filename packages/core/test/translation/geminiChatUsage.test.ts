import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { geminiChatUsage } from '../../src/entries/steps.js';

describe("geminiChatUsage: a Gemini CLI chat reply's tokens as a usage record", () => {
  it('subtracts the cached part from the input, bills thoughts as output, keeps the id, model and time', () => {
    expect(
      geminiChatUsage({
        id: 'r1',
        type: 'gemini',
        model: 'gemini-2.5-flash',
        timestamp: '2026-11-28T10:00:00.000Z',
        tokens: { input: 100, output: 7, cached: 40, thoughts: 3, tool: 0, total: 110 },
      }),
    ).toEqual({
      replyId: 'r1',
      model: 'gemini-2.5-flash',
      at: Date.parse('2026-11-28T10:00:00.000Z'),
      inputTokens: 60,
      cacheReadTokens: 40,
      outputTokens: 10,
      cacheCreationTokens: 0,
    });
  });

  it('gives nothing for other records or a reply without tokens', () => {
    expect(geminiChatUsage({ type: 'user', tokens: { input: 1 } })).toBeUndefined();
    expect(geminiChatUsage({ type: 'gemini', id: 'r' })).toBeUndefined();
    expect(geminiChatUsage({ type: 'gemini', tokens: [1, 2] })).toBeUndefined();
  });

  it('never throws, and every count is a non-negative integer, whatever the record holds', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue(), (record, tokens) => {
        const usage = geminiChatUsage({ ...record, type: 'gemini', tokens });
        for (const count of [
          usage?.inputTokens,
          usage?.outputTokens,
          usage?.cacheReadTokens,
          usage?.cacheCreationTokens,
        ])
          if (count !== undefined) expect(Number.isInteger(count) && count >= 0).toBe(true);
      }),
    );
  });
});
