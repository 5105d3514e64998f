/**
 * A `loopguard run`'s stored status as a user reads it (story56): `budget_spent` (its iterations,
 * its time or its spend budget ran out: the name reads money alone) is `limit reached`; the other
 * names (`running`, `paused`, `aborted`, `completed`, `interrupted`, `failed`) are words already.
 * @example runStatusWords('budget_spent'); // 'limit reached'
 */
export function runStatusWords(status: string): string {
  return status === 'budget_spent' ? 'limit reached' : status.replaceAll('_', ' ');
}
