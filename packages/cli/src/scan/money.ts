/**
 * Money as the scan shows it, the same in the terminal, the JSON's totals and the HTML: cents from
 * $0.01 up (`$4.10`), two significant digits below a cent (`$0.0042`), so that no row shows $0.00
 * beside a total of $0.01.
 * @example formatMoney(0.00421) // '$0.0042'
 */
export function formatMoney(amount: number): string {
  const rounded = Number(amount.toPrecision(2));
  if (rounded === 0 || Math.abs(rounded) >= 0.01) return `$${amount.toFixed(2)}`;
  return `$${rounded.toFixed(Math.min(8, 1 - Math.floor(Math.log10(Math.abs(rounded)))))}`;
}

/** `tokens` at `price` per million tokens, to the millionth of the unit (what {@link formatMoney} shows). */
export function costOf(tokens: number, price: number): number {
  return Math.round(tokens * price) / 1_000_000;
}
