import type { ContextEntry } from '../model/contextEntry.js';
import type { Task } from '../model/task.js';
import type { LoopType, Recommendation } from './loopVerdict.js';

/** What `applyRecovery` returns. */
export type RecoveryOutcome =
  | {
      /** A recovery was written. */
      applied: true;
      /** The task recovered. */
      taskId: string;
      /** The recovery written. */
      action: Recommendation;
      /** The loop the recovery answers. */
      loopType: LoopType;
      /** The context entry written. */
      entry: ContextEntry;
      /** The task after the recovery; `null` when the state machine does not know the task. */
      task: Task | null;
    }
  | {
      /** Nothing was written. */
      applied: false;
      /** The task the result named. */
      taskId: string;
      /** Why nothing was written: the result was not a loop, or the loop no longer holds in storage. */
      reason: string;
    };
