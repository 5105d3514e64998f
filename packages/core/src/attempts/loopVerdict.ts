/** The kinds of loop the detector recognises: the seed's three on one task, and a cycle across tasks. */
export type LoopType =
  | 'completed_task_revisit'
  | 'blocked_task_spin'
  | 'no_progress_repeat'
  | 'cross_task_cycle'
  | 'attempt_budget_exhausted';

/** The recovery a detection recommends. */
export type Recommendation = 'force_next' | 'unblock_authority' | 'escalate';

/** A judged loop, before evidence is attached. */
export interface LoopVerdict {
  /** The loop found. */
  loopType: LoopType;
  /** The recovery the detector recommends for it. */
  recommendation: Recommendation;
  /** Attempts in the run that makes the loop. */
  attemptCount: number;
  /** Why escalation was chosen; `null` for other recommendations. */
  reason: string | null;
}
