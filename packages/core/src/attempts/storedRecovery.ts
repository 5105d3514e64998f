import type { Logger } from 'pino';
import { logRecovery } from './detectionReport.js';
import type { DetectorSettings } from './detectorSettings.js';
import type { Workflow } from './portCall.js';
import type { RunCache } from './RunCache.js';
import type { RecoveryOutcome } from './recoveryOutcome.js';
import { cycleResultOf } from './taskCycle.js';
import * as flow from './workflows.js';

/** What the synchronous runner lends a recovery: its transaction, its run cache, its settings and log. */
export interface StoredRecoveryContext {
  /** Runs a workflow in one storage transaction. */
  run: <T>(workflow: Workflow<T>) => T;
  /** The runner's view of the tasks (updated with what is written). */
  cache: RunCache;
  /** The detector's settings in force. */
  settings: DetectorSettings;
  /** Where the recovery is logged. */
  log: Logger;
}

/**
 * Judges a task against storage and writes the planned recovery in one transaction, then brings the
 * run cache in line (the task forgotten, restarted when it was unblocked) and logs it; the caller
 * emits after.
 */
export function recoverStored(context: StoredRecoveryContext, taskId: string): flow.Recovery {
  const { run, cache, settings, log } = context;
  const recovery = run(flow.recoverTask(taskId, settings.clock.now(), settings.detection));
  cache.forget(taskId);
  const { outcome, detection } = recovery;
  if (!outcome.applied) return recovery;
  cache.restart(taskId, outcome.action === 'unblock_authority');
  logRecovery(log, outcome, detection);
  return recovery;
}

/**
 * Escalates every task of the cycle that includes `taskId`, re-judged against storage in the same
 * transaction (so that one of several processes writes it).
 */
export function recoverStoredCycle(
  context: StoredRecoveryContext,
  taskId: string,
): { outcome: RecoveryOutcome } {
  const { run, cache, settings, log } = context;
  const options = settings.cycle;
  const since = settings.clock.now() - settings.options.attemptWindow;
  const written = options === null ? null : run(flow.recoverStoredCycle(taskId, since, options));
  if (written === null) {
    return { outcome: { applied: false, taskId, reason: 'The cross-task cycle no longer holds.' } };
  }
  for (const id of written.cycle.tasks) cache.forget(id);
  const { outcome, cycle } = written;
  logRecovery(log, outcome, cycleResultOf(cycle, taskId, settings.detection.maxEvidence));
  return { outcome };
}
