import { type Clock, InvalidInputError, type StateMachine, systemClock } from '@loopguard/core';
import { GuardMonitor } from '@loopguard/core/guards';
import {
  assertNonEmptyString,
  describeValue,
  type Logger,
  parseOptions,
  SafeEmitter,
  SEED_000_NAMES,
  seed000Verdict,
  silentLogger,
} from '@loopguard/core/internal';
import {
  InMemoryIterationStore,
  type IterationSessionRecord,
  type IterationStore,
} from '@loopguard/core/iteration';
import type {
  IterationConfig,
  IterationHistoryEntry,
  SafetyBlocker,
  ValidationResult,
} from '@loopguard/core/seeds';
import { detectCompletionPromise } from './completionPromise.js';
import type { GuardStatistics, GuardStatisticsSource, IterationGuardTrigger } from './guardStatistics.js';
import type {
  IterationSessionsEvents,
  IterationSessionView,
  IterationStartResult,
  NextIterationResult,
  RecordValidationResult,
} from './iterationSessionResults.js';
import {
  type IterationSessionsOptions,
  iterationConfigSchema,
  iterationSessionsOptionsSchema,
  plainObjectOrUndefined,
} from './iterationSessionsOptions.js';

/**
 * Guarded iteration sessions (seed 000's iteration tools, the Ralph Wiggum pattern): an agent
 * iterates on one task; before each iteration seed 000's `runSafetyChecks` (max iterations,
 * circuit breaker, quality regression, thrashing) runs over the session's history, and a guard that
 * blocks stops the session: the task goes to `blocked` with reason
 * `Iteration safety guard: <guard>`, a final checkpoint with trigger `error` and
 * `agentContext: { safetyGuardTriggered, message }` is stored, and `{ error, blockedBy }` is returned.
 *
 * Checkpoints and history go through the {@link IterationStore} port (in memory, or SQLite with
 * `SqliteIterationStore`); the state-machine writes and the store writes of one step run in one
 * `stateMachine.transaction`, atomic when both share a SQLite connection.
 *
 * @example
 * const sessions = new IterationSessions({ stateMachine, store });
 * const { session } = sessions.startIteration('T1', { maxIterations: 5, completionPromises: ['All tests pass'] });
 * for (;;) {
 *   const next = sessions.nextIteration(session.id);
 *   if (!next.ok) { console.error(next.error); break; } // { error, blockedBy }
 *   const { output, passed } = await runAgentOnce('T1');
 *   const { completionAccepted } = sessions.recordValidation(session.id, { passed }, { output });
 *   if (completionAccepted) break;
 * }
 */
export class IterationSessions extends SafeEmitter<IterationSessionsEvents> implements GuardStatisticsSource {
  /** The store in use. */
  readonly store: IterationStore;
  /** The guard monitor fed by the sessions. */
  readonly monitor: GuardMonitor;
  private readonly stateMachine: StateMachine;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly markInProgress: boolean;
  private readonly stats: Omit<GuardStatistics, 'monitor'> = {
    checks: 0,
    blocked: 0,
    byGuard: {},
    lastBlock: null,
  };

  /**
   * @param options - see {@link IterationSessionsOptions}.
   * @throws ConfigurationError naming the first invalid option.
   */
  constructor(options: IterationSessionsOptions) {
    const parsed = parseOptions(iterationSessionsOptionsSchema, options, 'IterationSessions options');
    const log = (parsed.logger ?? silentLogger()).child({ component: 'IterationSessions' });
    super(log);
    this.log = log;
    this.stateMachine = parsed.stateMachine;
    this.store = parsed.store ?? new InMemoryIterationStore();
    this.clock = parsed.clock ?? systemClock;
    this.markInProgress = parsed.markInProgress;
    this.monitor = parsed.monitor ?? new GuardMonitor();
  }

  /**
   * Starts a session for a task the state machine knows: stores the session and a checkpoint
   * (iteration 0, trigger `start`), and moves the task to `in_progress`.
   *
   * @param taskId - the task.
   * @param config - seed 000's `IterationConfig` (`maxIterations`, `completionPromises`, `circuitBreakerThreshold`...).
   * @param options - `agentContext`: JSON stored in the start checkpoint.
   * @throws InvalidInputError when the task is unknown or already has an active session;
   * ConfigurationError when `config` is malformed.
   */
  startIteration(
    taskId: string,
    config: IterationConfig,
    options: {
      /** JSON stored in the start checkpoint. @default undefined (none stored) */
      agentContext?: Record<string, unknown>;
    } = {},
  ): IterationStartResult {
    assertNonEmptyString(taskId, 'taskId');
    parseOptions(iterationConfigSchema, config, 'config (IterationConfig)');
    const agentContext = plainObjectOrUndefined(options?.agentContext, 'options.agentContext');
    const task = this.stateMachine.getTask(taskId);
    if (task === undefined) {
      throw new InvalidInputError(`taskId ${JSON.stringify(taskId)} is not a task the state machine knows`);
    }
    const [active] = this.store.listSessions({ taskId, status: 'active' });
    if (active !== undefined) {
      throw new InvalidInputError(
        `taskId ${JSON.stringify(taskId)} already has an active iteration session ${JSON.stringify(active.id)}`,
      );
    }
    const now = this.clock.now();
    const result = this.stateMachine.transaction(() => {
      const session = this.store.createSession({ taskId, config, createdAt: now });
      const checkpoint = this.store.addCheckpoint({
        sessionId: session.id,
        taskId,
        iterationNumber: 0,
        trigger: 'start',
        agentContext: agentContext ?? null,
        createdAt: now,
      });
      if (this.markInProgress && task.status !== 'in_progress') {
        this.stateMachine.transition(taskId, 'in_progress', `Iteration session ${session.id} started`);
      }
      return { session, checkpoint };
    });
    this.log.info(
      { taskId, sessionId: result.session.id, maxIterations: config.maxIterations },
      'Iteration session started',
    );
    this.emit('sessionStarted', result.session, result.checkpoint);
    return result;
  }

  /**
   * Before the next iteration: runs seed 000's guards (the same guard strategies and engine as
   * `runSafetyChecks(checkpoint.iteration_number + 1, config, history)` and `GuardSet`).
   * When it passes, stores a checkpoint (trigger `iteration`) and returns the iteration to run.
   * When a guard blocks: the task goes to `blocked` with reason `Iteration safety guard: <guard>`,
   * a final checkpoint (trigger `error`, `agentContext: { safetyGuardTriggered, message }`) is
   * stored, the session ends `blocked`, `guardTriggered` is emitted and `{ error, blockedBy }` returned.
   *
   * @param options - `agentContext`: JSON stored in the iteration's checkpoint.
   * @throws InvalidInputError when the session is unknown or not active.
   */
  nextIteration(
    sessionId: string,
    options: {
      /** JSON stored in the iteration's checkpoint. @default undefined (none stored) */
      agentContext?: Record<string, unknown>;
    } = {},
  ): NextIterationResult {
    const session = this.activeSession(sessionId);
    const agentContext = plainObjectOrUndefined(options?.agentContext, 'options.agentContext');
    const latest = this.store.latestCheckpoint(sessionId);
    const current = latest?.iterationNumber ?? 0;
    const history: IterationHistoryEntry[] = this.store
      .listHistory(sessionId)
      .map((r) => ({ iteration: r.iteration, validationResult: r.validationResult }));
    const verdict = seed000Verdict(current + 1, session.config, history);
    this.stats.checks++;
    const now = this.clock.now();

    if (verdict === null) {
      const checkpoint = this.store.addCheckpoint({
        sessionId,
        taskId: session.taskId,
        iterationNumber: current + 1,
        trigger: 'iteration',
        agentContext: agentContext ?? null,
        createdAt: now,
      });
      this.emit('iterationStarted', session, checkpoint);
      return { ok: true, iteration: current + 1, checkpoint, session };
    }

    // the seed-shaped result and checkpoint use seed 000's names; statistics use the guards' own
    const blockedBy: SafetyBlocker = SEED_000_NAMES[verdict.guard as keyof typeof SEED_000_NAMES];
    const { message } = verdict;
    this.log.error({ taskId: session.taskId, sessionId, blockedBy }, `Safety guard triggered: ${blockedBy}`);
    this.log.error({ taskId: session.taskId, sessionId, blockedBy }, message);
    const reason = `Iteration safety guard: ${blockedBy}`;
    const { checkpoint, ended } = this.stateMachine.transaction(() => {
      this.stateMachine.transition(session.taskId, 'blocked', reason);
      const checkpoint = this.store.addCheckpoint({
        sessionId,
        taskId: session.taskId,
        iterationNumber: current,
        trigger: 'error',
        agentContext: { safetyGuardTriggered: blockedBy, message },
        createdAt: now,
      });
      const ended = this.store.endSession(sessionId, 'blocked', reason, now);
      return { checkpoint, ended };
    });
    const trigger: IterationGuardTrigger = {
      sessionId,
      taskId: session.taskId,
      guard: verdict.guard,
      message,
      iteration: current + 1,
      at: now,
    };
    this.stats.blocked++;
    this.stats.byGuard[verdict.guard] = (this.stats.byGuard[verdict.guard] ?? 0) + 1;
    this.stats.lastBlock = trigger;
    this.monitor.recordTrigger(verdict.guard);
    this.emit('guardTriggered', trigger);
    this.emit('sessionBlocked', ended);
    return { ok: false, error: message, blockedBy, checkpoint, session: ended };
  }

  /**
   * Records the validation of the iteration in progress (the latest checkpoint's) into the
   * session's history, and recognises a completion promise in `options.output`
   * (`<promise>COMPLETE</promise>`, `<promise>BLOCKED</promise>`, or one of the config's
   * `completionPromises` inside `<promise>` tags):
   * - COMPLETE (or a configured promise) with validation not failed: the task goes to `done`, a
   *   checkpoint with trigger `complete` is stored and the session ends `completed`;
   * - BLOCKED: the task goes to `blocked`, a checkpoint with trigger `blocked` is stored and the session ends `blocked`.
   *
   * @param validation - `passed`, `score` (0..1), `flags` (seed 000's `validationResult`).
   * @param options - `output`: the agent's output for the iteration.
   * @throws InvalidInputError when the session is unknown or not active, no iteration is in
   * progress (call `nextIteration` first), the iteration already has a validation, or `validation` is malformed.
   */
  recordValidation(
    sessionId: string,
    validation: ValidationResult,
    options: {
      /** The agent's output for the iteration, searched for a completion promise. @default undefined (none) */
      output?: string;
    } = {},
  ): RecordValidationResult {
    const session = this.activeSession(sessionId);
    const output = options?.output;
    if (output !== undefined && typeof output !== 'string') {
      throw new InvalidInputError(`options.output must be a string, got ${describeValue(output)}`);
    }
    const latest = this.store.latestCheckpoint(sessionId);
    const iteration = latest?.iterationNumber ?? 0;
    if (iteration < 1) {
      throw new InvalidInputError(
        `sessionId ${JSON.stringify(sessionId)} has no iteration in progress: call nextIteration first`,
      );
    }
    const completion =
      output === undefined ? null : detectCompletionPromise(output, session.config.completionPromises);
    const accepted = completion !== null && (completion.kind === 'blocked' || validation?.passed !== false);
    const now = this.clock.now();

    const { record, ended } = this.stateMachine.transaction(() => {
      const record = this.store.appendHistory({
        sessionId,
        taskId: session.taskId,
        iteration,
        validationResult: validation,
        output: output ?? null,
        completionPromise: completion?.promise ?? null,
        recordedAt: now,
      });
      if (!accepted || completion === null) return { record, ended: null };
      const complete = completion.kind === 'complete';
      const reason = complete
        ? `Iteration session ${sessionId}: completion promise ${completion.promise} kept at iteration ${iteration}`
        : `Agent reported ${completion.promise} at iteration ${iteration}`;
      this.stateMachine.transition(session.taskId, complete ? 'done' : 'blocked', reason);
      this.store.addCheckpoint({
        sessionId,
        taskId: session.taskId,
        iterationNumber: iteration,
        trigger: complete ? 'complete' : 'blocked',
        agentContext: { completionPromise: completion.promise, validation: { ...validation } },
        createdAt: now,
      });
      return {
        record,
        ended: this.store.endSession(sessionId, complete ? 'completed' : 'blocked', reason, now),
      };
    });

    if (latest !== undefined) this.monitor.recordIteration(Math.max(0, now - latest.createdAt));
    if (ended?.status === 'completed') this.monitor.recordCompletion(iteration);
    this.emit('validationRecorded', record, completion);
    if (ended?.status === 'completed') this.emit('sessionCompleted', ended);
    if (ended?.status === 'blocked') this.emit('sessionBlocked', ended);
    return { record, completion, completionAccepted: accepted, session: ended ?? session };
  }

  /** The session with its checkpoints and history, or `undefined` when unknown. */
  getSession(sessionId: string): IterationSessionView | undefined {
    assertNonEmptyString(sessionId, 'sessionId');
    const session = this.store.getSession(sessionId);
    if (session === undefined) return undefined;
    return {
      session,
      checkpoints: this.store.listCheckpoints(sessionId),
      history: this.store.listHistory(sessionId),
    };
  }

  /** Counts of safety checks and blocks since this object was created. */
  getGuardStatistics(): GuardStatistics {
    return {
      checks: this.stats.checks,
      blocked: this.stats.blocked,
      byGuard: { ...this.stats.byGuard },
      lastBlock: this.stats.lastBlock ? { ...this.stats.lastBlock } : null,
      monitor: this.monitor.snapshot(),
    };
  }

  private activeSession(sessionId: string): IterationSessionRecord {
    assertNonEmptyString(sessionId, 'sessionId');
    const session = this.store.getSession(sessionId);
    if (session === undefined) {
      throw new InvalidInputError(`sessionId ${JSON.stringify(sessionId)} is not a known iteration session`);
    }
    if (session.status !== 'active') {
      throw new InvalidInputError(
        `sessionId ${JSON.stringify(sessionId)} is ${session.status} (${session.endReason ?? 'no reason'}), not active`,
      );
    }
    return session;
  }
}
