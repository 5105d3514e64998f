/** The spend guard's reasons (`SpendReason`) as a user reads them. */
const WORDS: Readonly<Record<string, string>> = Object.freeze({
  cap: 'budget reached',
  share: 'nearing its budget',
  burn_rate: 'spending fast',
  unknown_price: 'a model without a price',
});

/**
 * Why the spend guard warned or stopped, in words (story56): the stored reason is a key (`cap`),
 * what `status`, the dashboard and the status line print is not. A reason this build does not know
 * is printed with spaces for its underscores.
 * @example spendReasonWords('cap'); // 'budget reached'
 */
export function spendReasonWords(reason: string): string {
  return Object.hasOwn(WORDS, reason) ? (WORDS[reason] as string) : reason.replaceAll('_', ' ');
}
