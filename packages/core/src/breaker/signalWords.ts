import type { SignalName } from './breakerTypes.js';

/**
 * Each breaker signal's name as a user reads it (polish65): `run`'s progress line says
 * `no files changed 2/3`, not `no_file_changes 2/3`; `--json` and the stored readings keep the names.
 * @example `${SIGNAL_WORDS.step_loop_stopped} 1/3`; // 'stopped mid-run by the loop detector 1/3'
 */
export const SIGNAL_WORDS: Readonly<Record<SignalName, string>> = {
  no_file_changes: 'no files changed',
  same_error: 'same error',
  task_not_progressing: 'task not progressing',
  completion_without_evidence: 'completion claimed without evidence',
  step_loop_stopped: 'stopped mid-run by the loop detector',
  permission_denied: 'permission denied',
  test_only: 'only tests changed',
};
