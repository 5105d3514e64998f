import { formatUsd, formatUsdTotal } from '@loopguard/core/spend';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('formatUsd: one rule for money', () => {
  it('shows cents, two significant digits below a cent, and never $0.00 for a cost', () => {
    expect(formatUsd(4.1)).toBe('$4.10');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.00421)).toBe('$0.0042');
    expect(formatUsd(0.0000001)).toBe('$0.0000001');
    expect(formatUsd(0.005)).toBe('$0.005');
  });

  it('beside the amount it is compared with, shows the decimals that tell them apart', () => {
    expect(`${formatUsd(0.047, 0.05)} of ${formatUsd(0.05, 0.047)}`).toBe('$0.047 of $0.05');
    expect(`${formatUsd(4.1, 5)} of ${formatUsd(5, 4.1)}`).toBe('$4.10 of $5.00');
    expect(`${formatUsd(0.0499999, 0.05)} of ${formatUsd(0.05, 0.0499999)}`).toBe('$0.0499999 of $0.05');
    expect(`${formatUsd(10.004, 10.0049)} of ${formatUsd(10.0049, 10.004)}`).toBe('$10.004 of $10.005');
    expect(formatUsd(5, 5)).toBe('$5.00');
  });

  it('a cap shows as a person writes it, whatever the amount beside it (never $10.0000)', () => {
    expect(`${formatUsd(0.0026, 10)} of ${formatUsd(10, 0.0026)}`).toBe('$0.0026 of $10.00');
    expect(`${formatUsd(0.00025, 5)} of ${formatUsd(5, 0.00025)}`).toBe('$0.00025 of $5.00');
    expect(`${formatUsd(0, 10)} of ${formatUsd(10, 0)}`).toBe('$0.00 of $10.00');
    expect(`${formatUsd(0.0042, 0.005)} of ${formatUsd(0.005, 0.0042)}`).toBe('$0.0042 of $0.005');
  });

  it('an amount the guard warns at (a share under 1, rounded to a millionth) never reads as the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0.5, max: 0.9999994, noNaN: true }),
        (cents, share) => {
          const cap = cents / 100;
          const spent = cap * share;
          expect(formatUsd(spent, cap)).not.toBe(formatUsd(cap, spent));
        },
      ),
    );
  });

  it('a total keeps the decimals a part was written with beside its cap, never one past the cents that is a zero (sess64)', () => {
    const part = { amount: 0.5039999999999999, beside: 0.5 };
    expect(formatUsdTotal(0.5039999999999999, [part])).toBe('$0.504');
    expect(formatUsdTotal(0.5039999999999999 + 0.016, [part])).toBe('$0.52');
    expect(formatUsdTotal(1.2, [part])).toBe('$1.20');
    expect(formatUsdTotal(1.704, [part])).toBe('$1.704');
    expect(formatUsdTotal(0.5, [{ amount: 0.5, beside: 0.5 }])).toBe('$0.50');
    expect(formatUsdTotal(0.0043, [])).toBe('$0.0043');
  });
});
