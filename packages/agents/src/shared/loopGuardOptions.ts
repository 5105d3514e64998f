import type { AsyncStateMachine, StateMachine } from '@loopguard/core';
import type { StepLoopDetectorOptions } from '@loopguard/core/steps';

/**
 * Options every adapter's `loopGuard()` takes: the {@link StepLoopDetectorOptions} (thresholds,
 * exemptions, `taskId`, `runId`, `clock`, `logger`), with `stateMachine` widened to the asynchronous
 * port so that a PostgreSQL store works as well as SQLite.
 */
export interface LoopGuardOptions extends Omit<StepLoopDetectorOptions, 'stateMachine'> {
  /**
   * Where nudges and stops are recorded as `loop_nudge` / `loop_stop` context entries (shown by the
   * dashboard): a `SqliteStateMachine` (written at once) or a `PgStateMachine` (written in the
   * background and awaited before the guard hands control back to the framework). Needs `taskId`.
   * @default undefined (nothing recorded)
   */
  stateMachine?: StateMachine | AsyncStateMachine;
}
