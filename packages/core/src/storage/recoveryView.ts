import type { ContextEntry } from '../model/contextEntry.js';

/** The recovery action each recovery topic records. */
const ACTION_OF_TOPIC: Readonly<Record<string, string>> = Object.freeze({
  loop_recovery: 'force_next',
  unblock_authority: 'unblock_authority',
  loop_escalation: 'escalate',
});

/**
 * The recovery action a topic records; another topic is its own action.
 * @example actionOfTopic('loop_escalation') // 'escalate'
 */
export function actionOfTopic(topic: string): string {
  return Object.hasOwn(ACTION_OF_TOPIC, topic) ? (ACTION_OF_TOPIC[topic] as string) : topic;
}

/**
 * A recovery as the status server shows it: in `/recoveries`, in `recoveryApplied` events and on the dashboard.
 * @example { id: '7', timestamp: 1760825000000, topic: 'unblock_authority', action: 'unblock_authority', taskId: 'T3.4.3', loopType: 'blocked_task_spin', attemptCount: 3, content: 'UNBLOCK AUTHORITY GRANTED: …', metadata: { evidence: […] } }
 */
export interface RecoveryView {
  /** The context entry's id. */
  id: string;
  /** When it was written, epoch ms. */
  timestamp: number;
  /** `loop_recovery`, `unblock_authority` or `loop_escalation`. */
  topic: string;
  /** The recovery action: `force_next`, `unblock_authority` or `escalate`. */
  action: string;
  /** The task it concerns (the first related task); `null` when none. */
  taskId: string | null;
  /** The loop type from the entry's metadata; `null` when absent. */
  loopType: string | null;
  /** Attempts in the loop, from the metadata; `null` when absent. */
  attemptCount: number | null;
  /** The text the autopilot reads. */
  content: string;
  /** The entry's metadata: the evidence (attempts), thresholds, blockers. */
  metadata: Readonly<Record<string, unknown>>;
}

/**
 * The {@link RecoveryView} of a recovery context entry.
 * @example recoveryViewOf(outcome.entry).action // 'force_next'
 */
export function recoveryViewOf(entry: ContextEntry): RecoveryView {
  const { loopType, attemptCount } = entry.metadata;
  return {
    id: entry.id,
    timestamp: entry.timestamp,
    topic: entry.topic,
    action: actionOfTopic(entry.topic),
    taskId: entry.relatedTasks[0] ?? null,
    loopType: typeof loopType === 'string' ? loopType : null,
    attemptCount: typeof attemptCount === 'number' ? attemptCount : null,
    content: entry.content,
    metadata: entry.metadata,
  };
}
