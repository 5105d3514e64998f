import type { IterationCheckpoint, IterationRecord, IterationSessionRecord } from '@loopguard/core/iteration';
import type { SafetyBlocker } from '@loopguard/core/seeds';
import type { CompletionPromiseMatch } from './completionPromise.js';
import type { IterationGuardTrigger } from './guardStatistics.js';

/** What {@link IterationSessions.startIteration} returns. */
export interface IterationStartResult {
  /** The new session (status `active`). */
  session: IterationSessionRecord;
  /** The checkpoint stored at the start: iteration 0, trigger `start`. */
  checkpoint: IterationCheckpoint;
}

/** What {@link IterationSessions.nextIteration} returns: the iteration may run, or a guard stopped the session. */
export type NextIterationResult =
  | {
      /** The iteration may run. */
      ok: true;
      /** The iteration to run now (1-based). */
      iteration: number;
      /** The checkpoint stored for it (trigger `iteration`). */
      checkpoint: IterationCheckpoint;
      /** The session. */
      session: IterationSessionRecord;
    }
  | {
      /** A safety guard stopped the session. */
      ok: false;
      /** The guard's message (seed 000's `error`). */
      error: string;
      /** The guard (seed 000's `blockedBy`). */
      blockedBy: SafetyBlocker;
      /** The final checkpoint (trigger `error`, `agentContext: { safetyGuardTriggered, message }`). */
      checkpoint: IterationCheckpoint;
      /** The session, now `blocked`. */
      session: IterationSessionRecord;
    };

/** What {@link IterationSessions.recordValidation} returns. */
export interface RecordValidationResult {
  /** The history entry stored. */
  record: IterationRecord;
  /** The completion promise found in the output; `null` when none. */
  completion: CompletionPromiseMatch | null;
  /**
   * Whether the promise ended the session: `BLOCKED` always does; `COMPLETE` (or a configured
   * promise) only when validation did not fail. `false` when there was no promise.
   */
  completionAccepted: boolean;
  /** The session after the record (completed or blocked when the promise was accepted). */
  session: IterationSessionRecord;
}

/** A session with everything stored about it. */
export interface IterationSessionView {
  /** The session. */
  session: IterationSessionRecord;
  /** Its checkpoints, oldest first. */
  checkpoints: IterationCheckpoint[];
  /** Its iteration history, by iteration. */
  history: IterationRecord[];
}

/** Events of {@link IterationSessions} (eventemitter3). */
export interface IterationSessionsEvents {
  /** A session started. */
  sessionStarted: [session: IterationSessionRecord, checkpoint: IterationCheckpoint];
  /** The safety checks passed and an iteration may run. */
  iterationStarted: [session: IterationSessionRecord, checkpoint: IterationCheckpoint];
  /** A validation was recorded. */
  validationRecorded: [record: IterationRecord, completion: CompletionPromiseMatch | null];
  /** A safety guard stopped a session. */
  guardTriggered: [trigger: IterationGuardTrigger];
  /** A session ended on an accepted completion promise. */
  sessionCompleted: [session: IterationSessionRecord];
  /** A session ended blocked (by a guard or by `<promise>BLOCKED</promise>`). */
  sessionBlocked: [session: IterationSessionRecord];
}
