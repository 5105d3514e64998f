import {
  type ContextEntry,
  RECOVERY_TOPICS,
  REFUSAL_TOPICS,
  SPEND_TOPICS,
  STEP_LOOP_TOPICS,
} from '../model/contextEntry.js';
import { loopKindWords, messageWords } from './loopKindWords.js';
import { spendReasonWords } from './spendReasonWords.js';

/**
 * Topics the recoveries page lists (`/recoveries`, `loopguard recoveries`, the dashboard, the live
 * feed): the attempt-level {@link RECOVERY_TOPICS} and the step-level nudges and stops
 * (`loop_nudge`, `loop_stop`) that `loopguard hook` and the agent adapters write, and the spend
 * guard's warnings and stops (`spend_warning`, `spend_stop`), and the calls loopguard refused
 * (`call_refused`).
 */
export const RECOVERY_VIEW_TOPICS = [
  ...RECOVERY_TOPICS,
  ...STEP_LOOP_TOPICS,
  ...SPEND_TOPICS,
  ...REFUSAL_TOPICS,
] as const;

/** One of {@link RECOVERY_VIEW_TOPICS}. */
export type RecoveryViewTopic = (typeof RECOVERY_VIEW_TOPICS)[number];

/** The recovery action each recovery topic records. */
const ACTION_OF_TOPIC: Readonly<Record<string, string>> = Object.freeze({
  loop_recovery: 'force_next',
  unblock_authority: 'unblock_authority',
  loop_escalation: 'escalate',
  loop_nudge: 'nudge',
  loop_stop: 'stop',
});

/**
 * The recovery action a topic records; another topic is its own action.
 * @example actionOfTopic('loop_escalation') // 'escalate'
 */
export function actionOfTopic(topic: string): string {
  return Object.hasOwn(ACTION_OF_TOPIC, topic) ? (ACTION_OF_TOPIC[topic] as string) : topic;
}

/**
 * The action a topic records, in the words a person reads (the dashboard's badges, `status
 * --session`, `recoveries`): `force next`, `spend stop`, `call refused`.
 * @example actionWords('spend_stop') // 'spend stop'
 */
export function actionWords(topic: string): string {
  return actionOfTopic(topic).replaceAll('_', ' ');
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
  /** One of {@link RECOVERY_VIEW_TOPICS}: `loop_recovery`, `unblock_authority`, `loop_escalation`, `loop_nudge` or `loop_stop`. */
  topic: string;
  /** The action: `force_next`, `unblock_authority`, `escalate`, `nudge` or `stop`. */
  action: string;
  /**
   * The task it concerns (the first related task); for a `loopguard hook` session's nudge or stop,
   * the session's task id `<agent>:<session_id>`; `null` when none.
   */
  taskId: string | null;
  /** The loop type from the entry's metadata; `null` when absent. */
  loopType: string | null;
  /** {@link loopType} in words (`same error`, {@link loopKindWords}), as the dashboard's entries say it; `null` when absent. */
  loopTypeText: string | null;
  /** Attempts in the loop, from the metadata; `null` when absent. */
  attemptCount: number | null;
  /** A spend entry's reason in words (`budget reached`, {@link spendReasonWords}); `null` for any other entry. */
  spendReason: string | null;
  /** The text the autopilot reads. */
  content: string;
  /**
   * {@link content} as a person reads it quoted (`status --session`, the dashboard's entries): a
   * loop message's kind in words (`Stopped (same error): …`, {@link messageWords}); any other
   * content as it is.
   */
  contentText: string;
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
    loopTypeText: typeof loopType === 'string' ? loopKindWords(loopType) : null,
    attemptCount: typeof attemptCount === 'number' ? attemptCount : null,
    spendReason:
      entry.topic.startsWith('spend_') && typeof entry.metadata.reason === 'string'
        ? spendReasonWords(entry.metadata.reason)
        : null,
    content: entry.content,
    contentText: messageWords(entry.content),
    metadata: entry.metadata,
  };
}

/**
 * Whether a recovery is a loop's first: it names a loop type and does not follow a nudge of the
 * same loop (a step-level stop after its nudge carries `followsNudge: true` in its metadata). The
 * status server counts `loopguard_loops_detected_total` by it, so a nudged, then stopped session is
 * one loop; the stored-baseline queries of each status reader apply the same rule in SQL
 * ({@link FOLLOWS_NUDGE_KEY}).
 * @example startsLoop(recoveryViewOf(stopEntry)) // false when the stop followed its nudge
 */
export function startsLoop(recovery: Pick<RecoveryView, 'loopType' | 'metadata'>): boolean {
  return recovery.loopType !== null && recovery.metadata[FOLLOWS_NUDGE_KEY] !== true;
}

/** The metadata key of a step-level stop that follows its loop's nudge (see {@link startsLoop}). */
export const FOLLOWS_NUDGE_KEY = 'followsNudge';
