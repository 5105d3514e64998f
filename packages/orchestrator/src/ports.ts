import type { TaskStatus } from '@loopguard/core';

/**
 * The task a policy hands to the loop. Only `id` is required; a core `Task` from the state machine
 * fits as it is.
 *
 * @example
 * const task: OrchestratorTask = { id: 'T3.4.2', title: 'Dashboard page' };
 */
export interface OrchestratorTask {
  /** The task id the attempts are recorded under, for example `T3.4.2`. */
  readonly id: string;
  /** Human-readable title. */
  readonly title?: string;
  /** The status the policy saw. Informational: the attempt records the executor's reported status. */
  readonly status?: TaskStatus;
}

/**
 * Run a task: the executor is called, then the attempt is recorded.
 * @example { type: 'run_task', task: { id: 'T3.4.3' } }
 */
export interface RunTaskDecision {
  /** Discriminant. */
  readonly type: 'run_task';
  /** The task to run. */
  readonly task: OrchestratorTask;
}

/**
 * Nothing to do this tick; while idle the loop backs off its interval.
 * @example { type: 'idle', reason: 'roadmap empty' }
 */
export interface IdleDecision {
  /** Discriminant. */
  readonly type: 'idle';
  /** Why there is nothing to do. */
  readonly reason?: string;
}

/**
 * Any other action (plan the roadmap, sync a repository...): handed to the `actionHandler` port.
 * @example { type: 'action', name: 'plan_next' }
 */
export interface ActionDecision {
  /** Discriminant. */
  readonly type: 'action';
  /** What to do, for the action handler. */
  readonly name: string;
  /** Anything the action handler needs. */
  readonly payload?: unknown;
}

/** What {@link Policy.decide} returns. */
export type Decision = RunTaskDecision | IdleDecision | ActionDecision;

/**
 * The policy port: reads the system state and decides what one tick does (the seed's
 * `this.policy.getSystemState()` and `this.policy.decide(state)`). Either method may return a promise.
 *
 * @typeParam State - whatever the policy reads; the loop passes it through untouched.
 * @example
 * const policy: Policy<Task[]> = {
 *   getSystemState: () => stateMachine.listTasks({ statuses: ['pending', 'in_progress'] }),
 *   decide: (tasks) => (tasks[0] ? { type: 'run_task', task: tasks[0] } : { type: 'idle' }),
 * };
 */
export interface Policy<State = unknown> {
  /** Reads the current system state. */
  getSystemState(): State | Promise<State>;
  /** Decides what this tick does. */
  decide(state: State): Decision | Promise<Decision>;
}

/**
 * What an executor reports after running a task. The loop validates the shape; anything else fails
 * the tick.
 *
 * @example { status: 'done', completedWork: ['Implemented dashboard.tsx'], blockers: [] }
 */
export interface ExecutorReport {
  /** The task's status after the run; recorded as the attempt's status. */
  status: TaskStatus;
  /** Work completed in this run. Identical work in consecutive runs is the seed's "no progress" signal. */
  completedWork: string[];
  /** Blockers hit in this run. */
  blockers: string[];
  /** Anything else worth keeping in the tick's details (JSON). */
  details?: Record<string, unknown>;
  /**
   * The tokens the run used, one entry per model reply (or one in all), for the spend guard
   * (`spend` option). A count that is missing or negative counts as 0; an entry's `id` is counted once.
   */
  usage?: UsageReport[];
}

/** The usage of one model reply, as an executor reports it with an attempt. */
export interface UsageReport {
  /** The reply's id: counted once however often it is reported. */
  id?: string;
  /** The model that answered (its price); absent: the cost is unknown, the tokens still count. */
  model?: string;
  /** Uncached input tokens. */
  inputTokens?: number;
  /** Output tokens. */
  outputTokens?: number;
  /** Input tokens written to the cache. */
  cacheCreationTokens?: number;
  /** Input tokens read from the cache. */
  cacheReadTokens?: number;
}

/** What the loop passes to an {@link Executor} besides the task. */
export interface ExecutorContext {
  /**
   * Aborted when `stop()` is called during the run or the run exceeds `executorTimeout`; the reason
   * is a core `RunError` with code `aborted` or `timeout`.
   */
  readonly signal: AbortSignal;
  /** The attempt's session id, `session_<tickNumber>`. */
  readonly sessionId: string;
  /** The tick running the task, starting at 1. */
  readonly tickNumber: number;
}

/**
 * The executor port: runs one task (calls the agent) and reports what happened.
 *
 * @example
 * const executor: Executor = async (task, { signal }) => {
 *   const out = await runAgent(task.id, { signal });
 *   return { status: out.done ? 'done' : 'in_progress', completedWork: out.work, blockers: out.blockers };
 * };
 */
export type Executor = (task: OrchestratorTask, context: ExecutorContext) => Promise<ExecutorReport>;

/**
 * Handles {@link ActionDecision}s. Without one, an action tick fails.
 * @example const actionHandler: ActionHandler = async (action) => { if (action.name === 'plan_next') await planNext(); };
 */
export type ActionHandler = (
  action: ActionDecision,
  context: { readonly signal: AbortSignal },
) => Promise<void> | void;

/**
 * The task-scheduler port: a source of queue events. Each `taskQueued` event triggers a tick at
 * once (coalesced with a tick in flight). Node's `EventEmitter` and eventemitter3 fit.
 *
 * @example
 * const queue = new EventEmitter();
 * const loop = new OrchestratorLoop({ ...ports, scheduler: queue });
 * queue.emit('taskQueued', 'T7'); // the loop ticks now instead of waiting for its interval
 */
export interface TaskScheduler {
  /** Subscribes to queue events. */
  on(event: 'taskQueued', listener: () => void): unknown;
  /** Unsubscribes. */
  off(event: 'taskQueued', listener: () => void): unknown;
}

/**
 * The quality monitor's verdict on one run.
 * @example { passed: false, score: 0.4, flags: ['2 tests failing'] }
 */
export interface QualityVerdict {
  /** Whether the run's output is acceptable. */
  passed: boolean;
  /** 0..1 (pass rate, coverage...). */
  score?: number;
  /** What the monitor flagged. */
  flags?: string[];
}

/**
 * The optional quality-monitor port: reviews a run after its attempt is recorded; the verdict is
 * returned in the tick's `details.quality` and emitted as `qualityReviewed`.
 *
 * @example
 * const qualityMonitor: QualityMonitor = { review: async (task) => ({ passed: await testsPass(task.id) }) };
 */
export interface QualityMonitor {
  /** Reviews the run of `task` that produced `report`. */
  review(task: OrchestratorTask, report: ExecutorReport): QualityVerdict | Promise<QualityVerdict>;
}
