/** Most decimals a dollar amount is shown with. */
const MAX_DECIMALS = 10;

/**
 * Money as every door shows it (the spend guard's messages, `status`, the dashboard, the status
 * line, `scan`'s terminal, JSON and HTML), written as a person writes dollars: cents from $0.01 up
 * (`$4.10`), two significant digits below a cent (`$0.0042`, so that a small cost never reads as
 * $0.00), no trailing zero past the cents that the amount does not have (`$0.005`). Beside the amount
 * it is compared with (`beside`: the cap, the alarm's threshold), an amount the cents do not show
 * exactly takes as many more decimals as it takes for the two to read differently: $0.047 of a $0.05
 * cap reads `$0.047 of $0.05`, never `$0.05 of $0.05`; a cap keeps its own cents (`$0.0026 of $10.00`).
 * Give the pair to both sides (`formatUsd(spent, cap)`, `formatUsd(cap, spent)`).
 * @example formatUsd(4.1); // '$4.10'
 * @example formatUsd(0.00421); // '$0.0042'
 * @example `${formatUsd(0.047, 0.05)} of ${formatUsd(0.05, 0.047)}`; // '$0.047 of $0.05'
 * @example `${formatUsd(0.0026, 10)} of ${formatUsd(10, 0.0026)}`; // '$0.0026 of $10.00'
 */
export function formatUsd(amount: number, beside?: number): string {
  const decimals = shownDecimals(amount, beside);
  let digits = Math.abs(amount).toFixed(decimals);
  const trimmed = trimZeros(digits);
  if (Number(trimmed) === Math.abs(amount)) digits = trimmed;
  return `${amount < 0 ? '-' : ''}$${digits}`;
}

/**
 * A total of amounts each written beside what it is compared with (a session's spend beside its cap:
 * `parts`), as every door writes it: with as many decimals as its most precise part was written
 * with, so that a session's `$0.504 of $0.50` is not `$0.50` in the total (sess64); no trailing zero
 * past the cents (a sum of floats is never exact: `$0.52`, not `$0.520`).
 * @example formatUsdTotal(0.504, [{ amount: 0.504, beside: 0.5 }]); // '$0.504'
 * @example formatUsdTotal(1.2, [{ amount: 0.504, beside: 0.5 }]); // '$1.20'
 */
export function formatUsdTotal(total: number, parts: readonly { amount: number; beside: number }[]): string {
  const decimals = Math.max(ownDecimals(total), ...parts.map((p) => shownDecimals(p.amount, p.beside)));
  if (decimals === ownDecimals(total)) return formatUsd(total);
  return `${total < 0 ? '-' : ''}$${trimZeros(Math.abs(total).toFixed(decimals))}`;
}

/** The decimals {@link formatUsd} writes `amount` with, beside `beside`. */
function shownDecimals(amount: number, beside: number | undefined): number {
  let decimals = ownDecimals(amount);
  if (beside !== undefined && beside !== amount)
    while (
      decimals < MAX_DECIMALS &&
      !shownExactly(amount, decimals) &&
      amount.toFixed(decimals) === beside.toFixed(decimals)
    )
      decimals++;
  return decimals;
}

/** `digits` without the zeros that end it past the cents (`0.5040` → `0.504`, `0.50` stays). */
function trimZeros(digits: string): string {
  return digits.replace(/(\.\d\d\d*?)0+$/, '$1');
}

/** Whether `decimals` decimals show the amount as it is (`0.05` at 2, not `0.047`). */
function shownExactly(amount: number, decimals: number): boolean {
  return Number(amount.toFixed(decimals)) === amount;
}

/** Decimals of an amount alone: 2 (cents), more below a cent for two significant digits. */
function ownDecimals(amount: number): number {
  const rounded = Math.abs(Number(amount.toPrecision(2)));
  if (!Number.isFinite(rounded) || rounded === 0 || rounded >= 0.01) return 2;
  return Math.min(MAX_DECIMALS, 1 - Math.floor(Math.log10(rounded)));
}
