import type { ContextEntry, ContextEntryInput } from '../model/contextEntry.js';
import type { Task, TaskStatus } from '../model/task.js';
import type { PlannedTransition } from './recoveryPlan.js';

/** Topic of the entry that records a human's resolution of an escalation. */
export const RESOLUTION_TOPIC = 'loop_resolution';

/** The topics that open (`loop_escalation`) and close (`loop_resolution`) an escalation. */
export const ESCALATION_TOPICS = ['loop_escalation', RESOLUTION_TOPIC] as const;

/**
 * How a human closed an escalation: `resolved` (the cause was fixed) or `acknowledged` (seen, and
 * the task may run again as it is). Both release the task; the difference is recorded.
 */
export type EscalationResolution = 'resolved' | 'acknowledged';

/** Input of `LoopDetector.resolveEscalation`. */
export interface ResolveEscalationInput {
  /** What the human did or decided, in a sentence (recorded in the entry and the task's history). */
  note: string;
  /** `resolved` or `acknowledged`. @default 'resolved' */
  resolution?: EscalationResolution;
  /** The status the task moves to. @default 'pending' */
  status?: TaskStatus;
  /** Who resolved it (a name or an id), recorded in the entry's metadata. @default null */
  by?: string;
}

/**
 * The task's open escalation: its newest entry on {@link ESCALATION_TOPICS} when that entry is an
 * escalation (no resolution followed), else `null`. An escalated task is not run again until then.
 * @param newest - the task's newest entry on {@link ESCALATION_TOPICS}, if any.
 * @example openEscalationOf(stateMachine.listContextEntries({ taskId, topics: ESCALATION_TOPICS, limit: 1 })[0])
 */
export function openEscalationOf(newest: ContextEntry | undefined): ContextEntry | null {
  return newest?.topic === 'loop_escalation' ? newest : null;
}

/**
 * Plans the writes that close an escalation (pure): the task's transition (when the task is known)
 * and the `loop_resolution` entry that points at the escalation.
 * @example planResolution('T1', escalation, { note: 'Token rotated' }, stateMachine.getTask('T1'))
 */
export function planResolution(
  taskId: string,
  escalation: ContextEntry,
  input: ResolveEscalationInput,
  task: Task | undefined,
): { transitions: PlannedTransition[]; entry: ContextEntryInput } {
  const resolution = input.resolution ?? 'resolved';
  const status = input.status ?? 'pending';
  const verb = resolution === 'resolved' ? 'RESOLVED' : 'ACKNOWLEDGED';
  const transitions: PlannedTransition[] =
    task === undefined ? [] : [{ taskId, status, reason: `Escalation ${resolution}: ${input.note}` }];
  return {
    transitions,
    entry: {
      entryType: 'decision',
      topic: RESOLUTION_TOPIC,
      content: `ESCALATION ${verb}: Task ${taskId} may run again (status ${status}).\n${input.note}`,
      relatedTasks: [taskId],
      confidence: 1,
      metadata: {
        taskId,
        resolution,
        status,
        note: input.note,
        by: input.by ?? null,
        escalationEntryId: escalation.id,
        taskKnown: task !== undefined,
      },
    },
  };
}
