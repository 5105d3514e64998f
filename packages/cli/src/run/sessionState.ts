import type { RunStatus } from '@loopguard/sqlite';
import { EXIT_CODES, type ExitCode } from '../terminal/exitCodes.js';

/** How a run ends: its stored status, the exit code, the reason shown and stored. */
export interface Outcome {
  /** The run's status. */
  status: RunStatus;
  /** The process exit code. */
  exitCode: ExitCode;
  /** Why, in words. */
  reason: string;
}

/** What a session's parts share and change as the run goes: the model, the task, the last error. */
export interface SessionState {
  /** Index into `--model-progression`. */
  modelIndex: number;
  /** Why the previous model stalled, added to the next prompt after an escalation. */
  failureContext: string | null;
  /** The last error signature seen. */
  lastError: string | null;
  /** The task of the last iteration. */
  lastTask: string | null;
  /** Plan items skipped by a person (`[s]` in the menu). */
  readonly skipped: Set<string>;
}

/** The outcome of a run the user interrupted (SIGINT/SIGTERM). */
export const INTERRUPTED: Outcome = Object.freeze({
  status: 'interrupted',
  exitCode: EXIT_CODES.interrupted,
  reason: 'interrupted by the user',
});

/** The outcome of a run aborted on stagnation: its task, when it has one, is blocked. */
export function abortedOutcome(task: string | null, reason: string): Outcome {
  return {
    status: 'aborted',
    exitCode: EXIT_CODES.aborted,
    reason: task === null ? reason : `task ${task} blocked: ${reason}`,
  };
}
