import type { LoopVerdict } from './loopVerdict.js';

/** The permissions an unblock-authority entry grants, in the seed's words. */
export const UNBLOCK_PERMISSIONS = Object.freeze([
  'Remove or work around these blockers',
  'Make necessary architectural changes',
  'Skip unavailable dependencies temporarily',
  'Create stub implementations if needed',
  'Document blockers as technical debt for later',
]);

/** The markdown of a `force_next` entry (topic `loop_recovery`). */
export function forceNextContent(taskId: string, verdict: LoopVerdict): string {
  const what =
    verdict.loopType === 'completed_task_revisit'
      ? `completed after ${verdict.attemptCount} attempts`
      : `made no progress in ${verdict.attemptCount} attempts`;
  return `LOOP DETECTED: Task ${taskId} ${what}.\nDO NOT revisit this task. SELECT NEXT TASK from roadmap using plan_next().`;
}

/** The markdown of an `unblock_authority` entry (topic `unblock_authority`). */
export function unblockAuthorityContent(
  taskId: string,
  blockers: readonly string[],
  attemptCount: number,
): string {
  const permissions = UNBLOCK_PERMISSIONS.map((p, i) => `${i + 1}. ${p}`).join('\n');
  return (
    `UNBLOCK AUTHORITY GRANTED: Task ${taskId} blocked by [${blockers.join(', ')}] after ${attemptCount} attempts.\n\n` +
    `You have FULL AUTHORITY to:\n${permissions}\n\n` +
    'COMPLETE the task by any means necessary, then mark it done and move on.'
  );
}

/** The markdown of an `escalate` entry (topic `loop_escalation`). */
export function escalationContent(taskId: string, verdict: LoopVerdict): string {
  return (
    `ESCALATION: Loop detected on task ${taskId} after ${verdict.attemptCount} attempts.\n` +
    `Human intervention required.\nReason: ${verdict.reason ?? 'Loop detected.'}`
  );
}
