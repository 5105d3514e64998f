import { type Attempt, type Detector, type LoopGuardError, RunError, StorageError } from '@loopguard/core';
import type { Logger } from '@loopguard/core/internal';
import type { SpendVerdict } from '@loopguard/core/spend';
import type { ExecutionResult, TickDetails } from './executionResult.js';
import type { OrchestratorSpend } from './orchestratorSpend.js';
import type {
  Decision,
  Executor,
  ExecutorReport,
  QualityMonitor,
  QualityVerdict,
  RunTaskDecision,
} from './ports.js';
import { runExecutor } from './runExecutor.js';
import { asLoopGuardError } from './tickErrors.js';
import type { Timer } from './timer.js';

/** What {@link runTaskTick} needs from the loop: its ports, settings and result reporting. */
export interface TaskTickContext {
  /** The loop detector. */
  detector: Detector;
  /** Runs the task. */
  executor: Executor;
  /** Times the executor out. */
  timer: Timer;
  /** The executor's timeout, ms. */
  executorTimeout: number;
  /** Record the attempt with a state-machine transition to the reported status. */
  applyReportedStatus: boolean;
  /** Reviews the executor's report, when configured. */
  qualityMonitor: QualityMonitor | undefined;
  /** The loop's logger. */
  log: Logger;
  /** The spend guard, when the `spend` option sets a budget. */
  spend: OrchestratorSpend | undefined;
  /** Called with a spend stop of the whole run (the loop stops). */
  spendStopped(verdict: SpendVerdict): void;
  /** Called with the quality monitor's verdict (the loop emits `qualityReviewed`). */
  qualityReviewed(taskId: string, verdict: QualityVerdict): void;
  /** Ends the tick successfully (the loop stores and emits the result). */
  finish(startedAt: number, tickNumber: number, action: Decision, details: TickDetails): ExecutionResult;
  /** Ends the tick as failed (the loop stores and emits the result). */
  fail(
    startedAt: number,
    tickNumber: number,
    action: Decision | null,
    error: LoopGuardError,
    details: TickDetails,
  ): ExecutionResult;
}

/** The tick a `run_task` decision runs in. */
export interface TaskTick {
  /** When the tick started, epoch ms. */
  startedAt: number;
  /** The tick's number. */
  tickNumber: number;
  /** The attempt's session id (`session_<tickNumber>`). */
  sessionId: string;
  /** Aborted when the loop stops. */
  signal: AbortSignal;
}

/**
 * The body of a tick with a `run_task` decision: skip an escalated task, check for a loop before
 * executing (applying the recovery instead of executing), execute, record the attempt after
 * executing, and have the quality monitor review the report.
 * @throws StorageError when a storage port fails.
 */
export async function runTaskTick(
  ctx: TaskTickContext,
  decision: RunTaskDecision,
  tick: TaskTick,
): Promise<ExecutionResult> {
  const { task } = decision;
  const { startedAt, tickNumber, sessionId, signal } = tick;

  // an escalated task waits for a human: not run, its blocked status not overwritten
  const escalation = await ctx.detector.openEscalation(task.id);
  if (escalation !== null) {
    ctx.log.info(
      { taskId: task.id, escalationEntryId: escalation.id },
      `Task ${task.id} is escalated and waits for resolveEscalation(); skipped`,
    );
    return ctx.finish(startedAt, tickNumber, decision, { skipped: 'escalated', escalation });
  }
  // a task (or a run) whose budget is spent is not run again
  const spent = ctx.spend?.exhausted(task.id);
  if (spent !== undefined) {
    if (spent.scope === 'session') ctx.spendStopped(spent);
    return ctx.finish(startedAt, tickNumber, decision, { skipped: 'spend_budget', spend: spent });
  }

  // 3. check for a loop BEFORE executing
  const loopDetection = await ctx.detector.detectLoop(task.id);
  if (loopDetection.isLooping) {
    ctx.log.warn({ loopResult: loopDetection }, 'Loop detected, applying recovery');
    const recovery = await ctx.detector.applyRecovery(loopDetection);
    if (recovery.applied) {
      // skip execution: the recovery handles the task
      return ctx.finish(startedAt, tickNumber, decision, {
        loopRecoveryApplied: true,
        loopDetection,
        recovery,
      });
    }
    ctx.log.info({ taskId: task.id, reason: recovery.reason }, 'Loop no longer holds; executing');
  }

  // 4. execute
  let report: ExecutorReport;
  try {
    report = await runExecutor(ctx.executor, task, {
      signal,
      timeout: ctx.executorTimeout,
      timer: ctx.timer,
      sessionId,
      tickNumber,
    });
  } catch (error) {
    const runError = asLoopGuardError(error);
    if (runError.code === 'aborted') {
      // stopped by the loop: not the task's fault, no attempt
      return ctx.fail(startedAt, tickNumber, decision, runError, { sessionId });
    }
    const blocker = `${runError.code}: ${runError.message}`;
    const attempt = await ctx.detector.recordAttempt(task.id, 'blocked', [blocker], [], sessionId);
    return ctx.fail(startedAt, tickNumber, decision, runError, { sessionId, attempt });
  }

  // 5. record the attempt AFTER executing, with the executor's reported status
  let attempt: Attempt;
  if (ctx.applyReportedStatus) {
    const reason =
      report.status === 'blocked' && report.blockers.length > 0
        ? report.blockers.join('; ')
        : `Executor reported ${report.status} (${sessionId})`;
    ({ attempt } = await ctx.detector.recordAttemptWithTransition({
      taskId: task.id,
      status: report.status,
      blockers: report.blockers,
      completedWork: report.completedWork,
      sessionId,
      reason,
    }));
  } else {
    attempt = await ctx.detector.recordAttempt(
      task.id,
      report.status,
      report.blockers,
      report.completedWork,
      sessionId,
    );
  }

  const details: TickDetails = {
    sessionId,
    status: report.status,
    completedWork: report.completedWork,
    blockers: report.blockers,
    attempt,
  };
  if (report.details !== undefined) details.executorDetails = report.details;
  const spend = ctx.spend?.observe(task.id, report.usage, sessionId);
  if (spend !== undefined) {
    details.spend = spend;
    if (spend.action === 'stop' && spend.scope === 'session') ctx.spendStopped(spend);
  }
  if (ctx.qualityMonitor) {
    try {
      const verdict = await ctx.qualityMonitor.review(task, report);
      details.quality = verdict;
      ctx.qualityReviewed(task.id, verdict);
    } catch (error) {
      if (error instanceof StorageError) throw error;
      const failure = new RunError(
        'run_error',
        `Quality monitor failed on task ${task.id}: ${String(error)}`,
        {
          cause: error,
        },
      );
      return ctx.fail(startedAt, tickNumber, decision, failure, details);
    }
  }
  return ctx.finish(startedAt, tickNumber, decision, details);
}
