/** Most decimals a dollar amount is shown with. */
const MAX_DECIMALS = 10;

/**
 * Money as every door shows it (the spend guard's messages, `scan`'s terminal, JSON and HTML):
 * cents from $0.01 up (`$4.10`), two significant digits below a cent (`$0.0042`, so that a small
 * cost never reads as $0.00), and, beside the amount it is compared with (`beside`: the cap, the
 * alarm's threshold), as many more decimals as it takes for the two to read differently: $0.047
 * of a $0.05 cap reads `$0.047 of $0.050`, never `$0.05 of $0.05`. Give the pair to both sides
 * (`formatUsd(spent, cap)`, `formatUsd(cap, spent)`) and they show the same decimals.
 * @example formatUsd(4.1); // '$4.10'
 * @example formatUsd(0.00421); // '$0.0042'
 * @example `${formatUsd(0.047, 0.05)} of ${formatUsd(0.05, 0.047)}`; // '$0.047 of $0.050'
 */
export function formatUsd(amount: number, beside?: number): string {
  let decimals = Math.max(ownDecimals(amount), beside === undefined ? 0 : ownDecimals(beside));
  if (beside !== undefined && beside !== amount)
    while (decimals < MAX_DECIMALS && amount.toFixed(decimals) === beside.toFixed(decimals)) decimals++;
  return `${amount < 0 ? '-' : ''}$${Math.abs(amount).toFixed(decimals)}`;
}

/** Decimals of an amount alone: 2 (cents), more below a cent for two significant digits. */
function ownDecimals(amount: number): number {
  const rounded = Math.abs(Number(amount.toPrecision(2)));
  if (!Number.isFinite(rounded) || rounded === 0 || rounded >= 0.01) return 2;
  return Math.min(MAX_DECIMALS, 1 - Math.floor(Math.log10(rounded)));
}
