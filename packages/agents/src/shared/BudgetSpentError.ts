import { RunError } from '@loopguard/core';
import type { SpendVerdict } from '@loopguard/core/spend';

/**
 * The error an adapter raises (or hands to the framework) when the spend guard stops a run at its
 * budget: code `aborted`, the stop message as its message, the verdict (scope, what was spent, the
 * caps) attached.
 * @example
 * try { await run(agent, task, { callModelInputFilter: guard.callModelInputFilter }); }
 * catch (error) { if (error instanceof BudgetSpentError) log(error.verdict.evidence.spent.costUsd); }
 */
export class BudgetSpentError extends RunError {
  /** The spend guard's `stop` verdict. */
  readonly verdict: SpendVerdict;

  /** @param verdict - the spend guard's `stop` verdict. */
  constructor(verdict: SpendVerdict) {
    super('aborted', verdict.message);
    this.verdict = verdict;
  }
}
