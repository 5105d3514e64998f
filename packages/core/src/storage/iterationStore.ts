import { InvalidInputError } from '../kernel/errors.js';
import { assertFiniteNumber, assertNonEmptyString, describeValue } from '../kernel/validate.js';
import type { IterationConfig, IterationHistoryEntry, ValidationResult } from '../model/iterationRecord.js';

/**
 * Why a checkpoint was stored:
 * - `start`: the session started (iteration 0);
 * - `iteration`: an iteration was allowed to run (its number);
 * - `complete`: the agent kept a completion promise and validation did not fail;
 * - `blocked`: the agent reported `<promise>BLOCKED</promise>`;
 * - `error`: a safety guard stopped the session (seed 000), `agentContext` holds `{ safetyGuardTriggered, message }`;
 * - `manual`: stored by a caller for its own reasons.
 */
export const CHECKPOINT_TRIGGERS = ['start', 'iteration', 'complete', 'blocked', 'error', 'manual'] as const;

/** One of {@link CHECKPOINT_TRIGGERS}. */
export type CheckpointTrigger = (typeof CHECKPOINT_TRIGGERS)[number];

/** `active` until the session completes or is blocked (by a guard or by the agent). */
export const ITERATION_SESSION_STATUSES = ['active', 'completed', 'blocked'] as const;

/** One of {@link ITERATION_SESSION_STATUSES}. */
export type IterationSessionStatus = (typeof ITERATION_SESSION_STATUSES)[number];

/**
 * A guarded iteration session of one task (seed 000's iteration tools), as stored.
 * @example { id: '1', taskId: 'T1', config: { maxIterations: 5, completionPromises: [] }, status: 'active', endReason: null, createdAt: 0, updatedAt: 0 }
 */
export interface IterationSessionRecord {
  /** Assigned by the store. */
  readonly id: string;
  /** The task iterated on. */
  readonly taskId: string;
  /** The session's configuration, as given at the start. */
  readonly config: Readonly<IterationConfig>;
  /** Where the session is. */
  readonly status: IterationSessionStatus;
  /** Why the session ended; `null` while active. */
  readonly endReason: string | null;
  /** When the session started, epoch ms. */
  readonly createdAt: number;
  /** When the session last changed status, epoch ms. */
  readonly updatedAt: number;
}

/** What a caller gives to create a session; the store assigns `id`, status `active`. */
export interface IterationSessionInput {
  /** The task. */
  taskId: string;
  /** The session's configuration. */
  config: IterationConfig;
  /** Start time, epoch ms. */
  createdAt: number;
}

/**
 * A checkpoint of a session (seed 000's `db.insertCheckpoint`): where the session was and why.
 * @example { id: '7', sessionId: '1', taskId: 'T1', iterationNumber: 3, trigger: 'error', agentContext: { safetyGuardTriggered: 'circuit_breaker', message: '…' }, createdAt: 0 }
 */
export interface IterationCheckpoint {
  /** Assigned by the store; increasing in insertion order. */
  readonly id: string;
  /** The session. */
  readonly sessionId: string;
  /** The task. */
  readonly taskId: string;
  /** The seed's `iteration_number`: 0 at the start, then the iteration allowed to run. */
  readonly iterationNumber: number;
  /** Why it was stored. */
  readonly trigger: CheckpointTrigger;
  /** The seed's `agent_context` (JSON object); `null` when none. */
  readonly agentContext: Readonly<Record<string, unknown>> | null;
  /** When, epoch ms. */
  readonly createdAt: number;
}

/** What a caller gives to store a checkpoint; the store assigns `id`. */
export interface IterationCheckpointInput {
  /** The session (must exist). */
  sessionId: string;
  /** The task. */
  taskId: string;
  /** Integer ≥ 0. */
  iterationNumber: number;
  /** Why. */
  trigger: CheckpointTrigger;
  /** JSON object. @default null */
  agentContext?: Record<string, unknown> | null;
  /** When, epoch ms. */
  createdAt: number;
}

/**
 * One recorded validation of an iteration: seed 000's history entry plus where it belongs.
 * @example { sessionId: '1', taskId: 'T1', iteration: 2, validationResult: { passed: false, flags: [{ message: 'Error in file: /src/api.ts' }] }, output: null, completionPromise: null, recordedAt: 0 }
 */
export interface IterationRecord extends IterationHistoryEntry {
  /** The session. */
  readonly sessionId: string;
  /** The task. */
  readonly taskId: string;
  /** The agent's output for the iteration, when given. */
  readonly output: string | null;
  /** The completion promise found in the output (for example `<promise>COMPLETE</promise>`); `null` when none. */
  readonly completionPromise: string | null;
  /** When, epoch ms. */
  readonly recordedAt: number;
}

/** What a caller gives to record a validation. */
export interface IterationRecordInput {
  /** The session (must exist). */
  sessionId: string;
  /** The task. */
  taskId: string;
  /** The iteration, integer ≥ 1; at most one record per session and iteration. */
  iteration: number;
  /** `passed`, `score` (0..1), `flags`. */
  validationResult: ValidationResult;
  /** The agent's output. @default null */
  output?: string | null;
  /** The completion promise found. @default null */
  completionPromise?: string | null;
  /** When, epoch ms. */
  recordedAt: number;
}

/**
 * The iteration-store port: sessions, their checkpoints and their iteration history. Adapters:
 * {@link InMemoryIterationStore} in core, `SqliteIterationStore` in `@loopguard/sqlite` (tables
 * `iteration_sessions`, `iteration_checkpoints`, `iteration_history`). Synchronous, like the other
 * ports. Returned objects are frozen copies.
 *
 * @example
 * const session = store.createSession({ taskId: 'T1', config, createdAt: clock.now() });
 * store.addCheckpoint({ sessionId: session.id, taskId: 'T1', iterationNumber: 0, trigger: 'start', createdAt: clock.now() });
 */
export interface IterationStore {
  /**
   * Creates an `active` session.
   * @throws InvalidInputError naming the field when `input` is malformed.
   */
  createSession(input: IterationSessionInput): IterationSessionRecord;
  /** The session, or `undefined` when the id is unknown. */
  getSession(sessionId: string): IterationSessionRecord | undefined;
  /** Sessions, optionally of one task and/or with one status, oldest first. */
  listSessions(filter?: { taskId?: string; status?: IterationSessionStatus }): IterationSessionRecord[];
  /**
   * Ends a session with `status` (`completed` or `blocked`) and a reason.
   * @throws InvalidInputError when the session is unknown or an argument is malformed.
   */
  endSession(
    sessionId: string,
    status: Exclude<IterationSessionStatus, 'active'>,
    reason: string,
    at: number,
  ): IterationSessionRecord;
  /**
   * Stores a checkpoint.
   * @throws InvalidInputError when `input` is malformed or its session is unknown.
   */
  addCheckpoint(input: IterationCheckpointInput): IterationCheckpoint;
  /** The session's checkpoints, oldest first. */
  listCheckpoints(sessionId: string): IterationCheckpoint[];
  /** The session's newest checkpoint, or `undefined` when it has none. */
  latestCheckpoint(sessionId: string): IterationCheckpoint | undefined;
  /**
   * Records one validation.
   * @throws InvalidInputError when `input` is malformed, its session is unknown, or the iteration
   * already has a record in the session.
   */
  appendHistory(input: IterationRecordInput): IterationRecord;
  /** The session's iteration history, by iteration (oldest first): what `runSafetyChecks` reads. */
  listHistory(sessionId: string): IterationRecord[];
}

function assertObject(value: unknown, name: string): asserts value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidInputError(`${name} must be a plain object, got ${describeValue(value)}`);
  }
}

function assertIntegerAtLeast(value: unknown, name: string, min: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidInputError(`${name} must be an integer ≥ ${min}, got ${describeValue(value)}`);
  }
}

/** Validates an {@link IterationSessionInput}; every iteration-store adapter calls it before writing. */
export function validateIterationSessionInput(input: IterationSessionInput): void {
  assertObject(input, 'session');
  assertNonEmptyString(input.taskId, 'session.taskId');
  assertObject(input.config, 'session.config');
  assertIntegerAtLeast(input.config.maxIterations, 'session.config.maxIterations', 1);
  assertFiniteNumber(input.createdAt, 'session.createdAt');
}

/** Validates the arguments of `endSession`; every iteration-store adapter calls it before writing. */
export function validateSessionEnd(status: unknown, reason: unknown, at: unknown): void {
  if (status !== 'completed' && status !== 'blocked') {
    throw new InvalidInputError(`status must be completed or blocked, got ${describeValue(status)}`);
  }
  assertNonEmptyString(reason, 'reason');
  assertFiniteNumber(at, 'at');
}

/** Validates an {@link IterationCheckpointInput}; every iteration-store adapter calls it before writing. */
export function validateIterationCheckpointInput(input: IterationCheckpointInput): void {
  assertObject(input, 'checkpoint');
  assertNonEmptyString(input.sessionId, 'checkpoint.sessionId');
  assertNonEmptyString(input.taskId, 'checkpoint.taskId');
  assertIntegerAtLeast(input.iterationNumber, 'checkpoint.iterationNumber', 0);
  if (!(CHECKPOINT_TRIGGERS as readonly unknown[]).includes(input.trigger)) {
    throw new InvalidInputError(
      `checkpoint.trigger must be one of ${CHECKPOINT_TRIGGERS.join(', ')}, got ${describeValue(input.trigger)}`,
    );
  }
  if (input.agentContext !== undefined && input.agentContext !== null) {
    assertObject(input.agentContext, 'checkpoint.agentContext');
  }
  assertFiniteNumber(input.createdAt, 'checkpoint.createdAt');
}

/** Validates an {@link IterationRecordInput}; every iteration-store adapter calls it before writing. */
export function validateIterationRecordInput(input: IterationRecordInput): void {
  assertObject(input, 'record');
  assertNonEmptyString(input.sessionId, 'record.sessionId');
  assertNonEmptyString(input.taskId, 'record.taskId');
  assertIntegerAtLeast(input.iteration, 'record.iteration', 1);
  const validation = input.validationResult;
  assertObject(validation, 'record.validationResult');
  if (validation.passed !== undefined && typeof validation.passed !== 'boolean') {
    throw new InvalidInputError(
      `record.validationResult.passed must be a boolean, got ${describeValue(validation.passed)}`,
    );
  }
  if (
    validation.score !== undefined &&
    !(typeof validation.score === 'number' && validation.score >= 0 && validation.score <= 1)
  ) {
    throw new InvalidInputError(
      `record.validationResult.score must be a number in 0..1, got ${describeValue(validation.score)}`,
    );
  }
  if (validation.flags !== undefined) {
    if (!Array.isArray(validation.flags)) {
      throw new InvalidInputError(
        `record.validationResult.flags must be an array, got ${describeValue(validation.flags)}`,
      );
    }
    validation.flags.forEach((flag, i) => {
      assertObject(flag, `record.validationResult.flags[${i}]`);
      if (typeof flag.message !== 'string') {
        throw new InvalidInputError(
          `record.validationResult.flags[${i}].message must be a string, got ${describeValue(flag.message)}`,
        );
      }
    });
  }
  for (const key of ['output', 'completionPromise'] as const) {
    const value = input[key];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw new InvalidInputError(`record.${key} must be a string or null, got ${describeValue(value)}`);
    }
  }
  assertFiniteNumber(input.recordedAt, 'record.recordedAt');
}
