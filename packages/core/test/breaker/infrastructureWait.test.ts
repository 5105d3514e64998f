import { describe, expect, it } from 'vitest';
import { infrastructureWaitMs, resetTimeOf } from '../../src/internal.js';

describe('infrastructureWaitMs', () => {
  it('backs off exponentially up to the cap', () => {
    expect(infrastructureWaitMs({ consecutive: 1, now: 0, baseMs: 1000 })).toBe(1000);
    expect(infrastructureWaitMs({ consecutive: 3, now: 0, baseMs: 1000 })).toBe(4000);
    expect(infrastructureWaitMs({ consecutive: 30, now: 0, baseMs: 1000, maxMs: 5000 })).toBe(5000);
    expect(infrastructureWaitMs({ consecutive: 1, now: 0 })).toBe(30_000);
  });

  it('waits until a stated reset time in the future', () => {
    expect(infrastructureWaitMs({ consecutive: 1, now: 1000, resetAt: 61_000 })).toBe(60_000);
    expect(infrastructureWaitMs({ consecutive: 1, now: 1000, resetAt: 500, baseMs: 7 })).toBe(7);
  });
});

describe('resetTimeOf', () => {
  it.each([
    ['Claude AI usage limit reached|1763790000', 1_763_790_000_000],
    ['Rate limited. Try again in 2 minutes.', 120_000],
    ['429: retry after 30 seconds', 30_000],
    ['Retry-After: 12', 12_000],
    ['limit resets at 2026-11-22T05:00:00Z', Date.parse('2026-11-22T05:00:00Z')],
  ])('reads %j', (text, expected) => {
    expect(resetTimeOf(text, 0)).toBe(expected);
  });

  it('returns null when no time is stated', () => {
    expect(resetTimeOf('Error: 429 Too Many Requests', 0)).toBeNull();
  });
});
