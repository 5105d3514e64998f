import { RunError, TASK_STATUSES } from '@loopguard/core';
import { z } from 'zod';
import type { ExecutorReport, UsageReport } from './ports.js';

/** zod schema of an {@link ExecutorReport}; unknown keys are dropped. */
export const executorReportSchema = z.object({
  status: z.enum(TASK_STATUSES),
  completedWork: z.array(z.string()),
  blockers: z.array(z.string()),
  details: z.record(z.string(), z.unknown()).optional(),
  // Loose on purpose: a bad count is counted as 0 by the spend guard, never a failed tick.
  usage: z.array(z.record(z.string(), z.unknown())).optional().catch(undefined),
});

/**
 * Checks what an executor resolved with.
 * @returns a fresh report (the arrays are copies).
 * @throws RunError with code `run_error` naming the first offending field.
 * @example validateExecutorReport({ status: 'done', completedWork: [], blockers: [] })
 */
export function validateExecutorReport(value: unknown): ExecutorReport {
  const parsed = executorReportSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join('.') ?? '';
    throw new RunError(
      'run_error',
      `Executor returned an invalid report: ${path === '' ? 'the report' : `"${path}"`} ${issue?.message ?? 'is invalid'}`,
    );
  }
  const { status, completedWork, blockers, details, usage } = parsed.data;
  return {
    status,
    completedWork: [...completedWork],
    blockers: [...blockers],
    ...(details === undefined ? {} : { details }),
    ...(usage === undefined ? {} : { usage: usage as UsageReport[] }),
  };
}
