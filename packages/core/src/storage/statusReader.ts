import type { RecoveryView, RecoveryViewTopic } from './recoveryView.js';
import type { SessionCounts } from './sessionCounts.js';
import type { SessionKey, SessionPage, SessionPageQuery } from './sessionPage.js';

/**
 * One task on a status page.
 * @example { id: 'T3.4.3', title: 'Design-system review', status: 'blocked', blockedReason: 'Loop escalation: …', attemptCount: 0, lastAttempt: null, lastRecovery: 'loop_escalation', lastRecoveryText: 'escalate' }
 */
export interface TaskStatusRow {
  /** The task's id. */
  id: string;
  /** Its title. */
  title: string;
  /** Its status (`pending`, `in_progress`, `blocked`, …). */
  status: string;
  /** Why it is blocked; `null` unless it is. */
  blockedReason: string | null;
  /** Attempts at or after the query's `attemptsSince`. */
  attemptCount: number;
  /** Newest of those attempts, epoch ms; `null` when none. */
  lastAttempt: number | null;
  /** The topic of the task's newest recovery; `null` when it never looped. */
  lastRecovery: string | null;
  /** {@link lastRecovery}'s action in words (`escalate`, `force next`, as `actionWords` says it), as `status` and the dashboard's Tasks tables say it; `null` when it never looped. */
  lastRecoveryText: string | null;
}

/**
 * What {@link StatusReader.taskPage} reads: a page of tasks by id.
 * @example { limit: 100, cursor: undefined, attemptsSince: Date.now() - 3_600_000 }
 */
export interface TaskPageQuery {
  /** Tasks per page (1..1000). */
  limit: number;
  /** The `nextCursor` of the previous page; absent for the first page. */
  cursor?: string | undefined;
  /** Only attempts at or after this time count (epoch ms: "now" minus the detector's window). */
  attemptsSince: number;
}

/**
 * A page of tasks (keyset paging by task id).
 * @example { tasks: [...], total: 100000, nextCursor: 'WyJUMDAwOTkiXQ' }
 */
export interface TaskStatusPage {
  /** The tasks of this page, by id. */
  tasks: TaskStatusRow[];
  /** Tasks stored. */
  total: number;
  /** Pass as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}

/**
 * What {@link StatusReader.recoveryPage} reads: recovery entries and step-level nudges and stops, newest first, filtered.
 * @example { limit: 50, topic: 'unblock_authority', taskId: 'T3.4.3', since: 1760825000000 }
 */
export interface RecoveryPageQuery {
  /** Entries per page (1..1000). */
  limit: number;
  /** The `nextCursor` of the previous page. @default undefined (the first page) */
  cursor?: string | undefined;
  /** Only this topic (one of `RECOVERY_VIEW_TOPICS`). @default every topic */
  topic?: RecoveryViewTopic | undefined;
  /** Only entries about this task. @default every task's */
  taskId?: string | undefined;
  /** Only entries at or after this time, epoch ms. @default no lower bound */
  since?: number | undefined;
  /** Only entries before this time, epoch ms. @default no upper bound */
  until?: number | undefined;
}

/**
 * A page of recoveries, newest first.
 * @example { recoveries: [...], nextCursor: null }
 */
export interface RecoveryPage {
  /** The recoveries of this page. */
  recoveries: RecoveryView[];
  /** Pass as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}

/**
 * The newest run of `loopguard run` and its stagnation breaker, as its store reports it.
 * @example { state: 'OPEN', runId: 'r2', runStatus: 'interrupted', reason: 'owner process 4242 is gone', updatedAt: 1760825000000 }
 */
export interface RunBreakerView {
  /** The breaker's state: `CLOSED`, `HALF_OPEN` or `OPEN`. */
  state: string;
  /** The run's id. */
  runId: string;
  /** `running`, `paused`, `interrupted`, `completed`, `failed`, … */
  runStatus: string;
  /** `runStatus` as a user reads it (`limit reached` for `budget_spent`: `runStatusWords`). */
  statusText: string;
  /** Why the run last stopped or paused; `null` while it runs. */
  reason: string | null;
  /** When the run last changed, epoch ms. */
  updatedAt: number;
}

/**
 * One stagnation-breaker transition of a `loopguard run`.
 * @example { id: 3, runId: 'r1', at: 1760825000000, from: 'CLOSED', state: 'OPEN', reason: 'no file changes in 3 iterations' }
 */
export interface BreakerTransitionView {
  /** The transition's id (increasing). */
  id: number;
  /** The run it belongs to. */
  runId: string;
  /** When, epoch ms. */
  at: number;
  /** The state left. */
  from: string;
  /** The state entered. */
  state: string;
  /** Why, in words (`no file changes in 3 iterations`). */
  reason: string;
}

/**
 * What the store held when a status server started, so that its counters do not restart at zero.
 * @example { attempts: 120, recoveries: [{ topic: 'loop_recovery', loopType: 'completed_task_revisit', count: 2, loops: 2 }] }
 */
export interface StatusMetricsBaseline {
  /** Attempts stored. */
  attempts: number;
  /**
   * Recovery entries by topic and loop type; `loops` of them began a loop (they do not follow
   * their loop's nudge: see `startsLoop`).
   */
  recoveries: { topic: string; loopType: string | null; count: number; loops: number }[];
}

/**
 * Where a follower of the store stands: the highest ids it has seen.
 * @example { attemptId: 120, entryId: 14, transitionId: 0 }
 */
export interface FeedPosition {
  /** Highest attempt id. */
  attemptId: number;
  /** Highest context-entry id. */
  entryId: number;
  /** Highest breaker-transition id (0 where the store has no runs). */
  transitionId: number;
}

/**
 * What was written after a {@link FeedPosition}, oldest first.
 * @example { attemptsAdded: 2, breakerTransitions: [], recoveries: [view], position: { attemptId: 122, entryId: 15, transitionId: 0 }, more: false }
 */
export interface FeedBatch {
  /**
   * How far the highest attempt id grew. Attempts appended and deleted (by a recovery) between two
   * reads are not seen.
   */
  attemptsAdded: number;
  /** Breaker transitions written after the position. */
  breakerTransitions: BreakerTransitionView[];
  /** Recoveries written after the position. */
  recoveries: RecoveryView[];
  /** Pass to the next {@link StatusReader.feedAfter}. */
  position: FeedPosition;
  /** Whether more recoveries or transitions wait beyond `limit` (read again at once). */
  more: boolean;
}

/**
 * The reads of the status server (`/status`, `/recoveries`, `/metrics`, `/events`, `loopguard status`):
 * implemented by each storage (`SqliteStatusReader`, `PgStatusReader`), so that the server depends on
 * this port only. Every read is paged or bounded and never writes.
 * @throws InvalidInputError naming `cursor` when a cursor is not one this reader made.
 * @throws StorageError when the store fails.
 * @example
 * const page = await reader.taskPage({ limit: 100, attemptsSince: Date.now() - 3_600_000 });
 */
export interface StatusReader {
  /** A page of tasks with their attempts since `attemptsSince` and their newest recovery. */
  taskPage(query: TaskPageQuery): Promise<TaskStatusPage>;
  /** A page of recovery entries, newest first. */
  recoveryPage(query: RecoveryPageQuery): Promise<RecoveryPage>;
  /** The newest attempt's time; `null` when there is none. */
  lastAttemptAt(): Promise<number | null>;
  /** The newest `loopguard run` and its breaker; `undefined` when the store has no runs. */
  latestRun(): Promise<RunBreakerView | undefined>;
  /** What the metrics start from (one pass over the attempts and recoveries: read once). */
  metricsBaseline(): Promise<StatusMetricsBaseline>;
  /** The position of the newest entries now: where a follower starts. */
  feedPosition(): Promise<FeedPosition>;
  /** Recoveries and breaker transitions written after `position` (at most `limit` of each). */
  feedAfter(position: FeedPosition, limit: number): Promise<FeedBatch>;
  /** A stamp that changes whenever the store changes (answers may be cached while it stays). */
  changeStamp(): Promise<string>;
  /** A page of agent sessions (every door's), most recently active first. */
  sessionPage(query: SessionPageQuery): Promise<SessionPage>;
  /** Every session counted by verdict, and the spend of each agent. */
  sessionCounts(): Promise<SessionCounts>;
  /** A session's nudges, stops and spend entries, its subagents' included (each names its run), oldest first (at most `limit`). */
  sessionEntries(session: SessionKey, limit: number): Promise<RecoveryView[]>;
}
