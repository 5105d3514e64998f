import type { LoopVerdict } from './loopVerdict.js';

/**
 * The per-task attempt budget: an agent whose reports vary a little every attempt escapes the three
 * loop rules, yet a task that has taken `maxAttemptsPerTask` attempts inside the window without
 * finishing is stuck all the same. Judged after the three rules; escalates to a human.
 *
 * @param windowCount - the task's attempts inside the window.
 * @param maxAttemptsPerTask - the budget; `null` turns the rule off.
 * @returns the verdict, or `null` while budget is left.
 * @example judgeBudget(20, 20)?.loopType; // 'attempt_budget_exhausted'
 */
export function judgeBudget(windowCount: number, maxAttemptsPerTask: number | null): LoopVerdict | null {
  if (maxAttemptsPerTask === null || windowCount < maxAttemptsPerTask) return null;
  return {
    loopType: 'attempt_budget_exhausted',
    recommendation: 'escalate',
    attemptCount: windowCount,
    reason: `Attempt budget spent: ${windowCount} attempts inside the window (maxAttemptsPerTask ${maxAttemptsPerTask}) without finishing.`,
  };
}
