import type { ContextEntryInput } from '../model/contextEntry.js';
import type { SpendVerdict } from './checkSpend.js';

export { SPEND_TOPICS } from '../model/contextEntry.js';

/**
 * The context entry of a spend verdict: `spend_warning` (a learning) or `spend_stop` (a decision),
 * its evidence in `metadata`: `scope`, `reason` (`share`, `cap`, `burn_rate`), `spent` (tokens by
 * kind, dollars, unpriced tokens and models), `caps`, `warnAt`, `burnRate` where it spoke.
 * @param context - the task the entry concerns, when it was judged, and what the door adds (session id, agent).
 * @example spendEntry(verdict, { taskId: 'claude:s1', detectedAt: 0 }).topic; // 'spend_stop'
 */
export function spendEntry(
  verdict: SpendVerdict,
  context: { taskId: string; detectedAt: number; metadata?: Record<string, unknown> },
): ContextEntryInput {
  const stop = verdict.action === 'stop';
  return {
    entryType: stop ? 'decision' : 'learning',
    topic: stop ? 'spend_stop' : 'spend_warning',
    content: verdict.message,
    relatedTasks: [context.taskId],
    confidence: 1,
    metadata: {
      scope: verdict.scope,
      reason: verdict.reason,
      ...verdict.evidence,
      detectedAt: context.detectedAt,
      ...context.metadata,
    },
  };
}
