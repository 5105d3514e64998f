import { RunError, TASK_STATUSES } from '@loopguard/core';
import { z } from 'zod';
import type { ExecutorReport } from './ports.js';

/** zod schema of an {@link ExecutorReport}; unknown keys are dropped. */
export const executorReportSchema = z.object({
  status: z.enum(TASK_STATUSES),
  completedWork: z.array(z.string()),
  blockers: z.array(z.string()),
  details: z.record(z.string(), z.unknown()).optional(),
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
  const { status, completedWork, blockers, details } = parsed.data;
  return details === undefined
    ? { status, completedWork: [...completedWork], blockers: [...blockers] }
    : { status, completedWork: [...completedWork], blockers: [...blockers], details };
}
