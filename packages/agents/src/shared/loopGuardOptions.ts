import type { AsyncStateMachine, StateMachine } from '@loopguard/core';
import type { SpendOptions } from '@loopguard/core/spend';
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
  /**
   * The spend guard of the run (docs/spend.md): `session` caps the run, `task` the task over every
   * run of this guard, `warnAt`, `burnRate`, `prices`. The usage the framework reports per step is
   * counted (each response id once) and priced per model from the pricing library; a warning is
   * delivered like a nudge, a stop ends the run like a loop's (`spend_warning`, `spend_stop` entries).
   * @default undefined (no budget)
   */
  spend?: SpendOptions;
  /**
   * The run's project, written in its `run_started` entry: the sessions' project column (the
   * dashboard's, `status`'s), as a hook session's is its agent's project.
   * @default process.cwd() when the guard is made
   */
  projectDir?: string;
}
