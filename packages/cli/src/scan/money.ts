import { formatUsd } from '@loopguard/core/spend';

/**
 * Money as the scan shows it, the same in the terminal, the JSON's totals and the HTML: the spend
 * guard's one rule ({@link formatUsd}: cents from $0.01 up, two significant digits below a cent).
 * @example formatMoney(0.00421) // '$0.0042'
 */
export function formatMoney(amount: number): string {
  return formatUsd(amount);
}

/** `tokens` at `price` per million tokens, to the millionth of the unit (what {@link formatMoney} shows). */
export function costOf(tokens: number, price: number): number {
  return Math.round(tokens * price) / 1_000_000;
}
