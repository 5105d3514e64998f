import { InvalidInputError } from '../kernel/errors.js';
import { assertNonEmptyString } from '../kernel/validate.js';
import {
  type IterationCheckpoint,
  type IterationCheckpointInput,
  type IterationRecord,
  type IterationRecordInput,
  type IterationSessionInput,
  type IterationSessionRecord,
  type IterationSessionStatus,
  type IterationStore,
  validateIterationCheckpointInput,
  validateIterationRecordInput,
  validateIterationSessionInput,
  validateSessionEnd,
} from '../storage/iterationStore.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Iteration sessions, checkpoints and history kept in memory: the default {@link IterationStore}.
 * Inputs are validated and copied; returned objects are frozen.
 *
 * @example
 * const sessions = new IterationSessions({ stateMachine, store: new InMemoryIterationStore() });
 */
export class InMemoryIterationStore implements IterationStore {
  private readonly sessions = new Map<string, IterationSessionRecord>();
  private readonly checkpoints = new Map<string, IterationCheckpoint[]>();
  private readonly history = new Map<string, IterationRecord[]>();
  private nextSessionId = 1;
  private nextCheckpointId = 1;

  createSession(input: IterationSessionInput): IterationSessionRecord {
    validateIterationSessionInput(input);
    const session: IterationSessionRecord = deepFreeze({
      id: String(this.nextSessionId++),
      taskId: input.taskId,
      config: structuredClone(input.config),
      status: 'active',
      endReason: null,
      createdAt: input.createdAt,
      updatedAt: input.createdAt,
    });
    this.sessions.set(session.id, session);
    this.checkpoints.set(session.id, []);
    this.history.set(session.id, []);
    return session;
  }

  getSession(sessionId: string): IterationSessionRecord | undefined {
    return this.sessions.get(sessionId);
  }

  listSessions(filter: { taskId?: string; status?: IterationSessionStatus } = {}): IterationSessionRecord[] {
    return [...this.sessions.values()].filter(
      (s) =>
        (filter.taskId === undefined || s.taskId === filter.taskId) &&
        (filter.status === undefined || s.status === filter.status),
    );
  }

  endSession(
    sessionId: string,
    status: Exclude<IterationSessionStatus, 'active'>,
    reason: string,
    at: number,
  ): IterationSessionRecord {
    const existing = this.requireSession(sessionId, 'sessionId');
    validateSessionEnd(status, reason, at);
    const session: IterationSessionRecord = Object.freeze({
      ...existing,
      status,
      endReason: reason,
      updatedAt: at,
    });
    this.sessions.set(sessionId, session);
    return session;
  }

  addCheckpoint(input: IterationCheckpointInput): IterationCheckpoint {
    validateIterationCheckpointInput(input);
    this.requireSession(input.sessionId, 'checkpoint.sessionId');
    const checkpoint: IterationCheckpoint = deepFreeze({
      id: String(this.nextCheckpointId++),
      sessionId: input.sessionId,
      taskId: input.taskId,
      iterationNumber: input.iterationNumber,
      trigger: input.trigger,
      agentContext: input.agentContext ? structuredClone(input.agentContext) : null,
      createdAt: input.createdAt,
    });
    this.checkpoints.get(input.sessionId)?.push(checkpoint);
    return checkpoint;
  }

  listCheckpoints(sessionId: string): IterationCheckpoint[] {
    return [...(this.checkpoints.get(sessionId) ?? [])];
  }

  latestCheckpoint(sessionId: string): IterationCheckpoint | undefined {
    return this.checkpoints.get(sessionId)?.at(-1);
  }

  appendHistory(input: IterationRecordInput): IterationRecord {
    validateIterationRecordInput(input);
    this.requireSession(input.sessionId, 'record.sessionId');
    const list = this.history.get(input.sessionId) ?? [];
    if (list.some((r) => r.iteration === input.iteration)) {
      throw new InvalidInputError(
        `record.iteration ${input.iteration} of session ${JSON.stringify(input.sessionId)} is already recorded`,
      );
    }
    const record: IterationRecord = deepFreeze({
      sessionId: input.sessionId,
      taskId: input.taskId,
      iteration: input.iteration,
      validationResult: structuredClone(input.validationResult),
      output: input.output ?? null,
      completionPromise: input.completionPromise ?? null,
      recordedAt: input.recordedAt,
    });
    list.push(record);
    list.sort((a, b) => a.iteration - b.iteration);
    this.history.set(input.sessionId, list);
    return record;
  }

  listHistory(sessionId: string): IterationRecord[] {
    return [...(this.history.get(sessionId) ?? [])];
  }

  private requireSession(sessionId: string, name: string): IterationSessionRecord {
    assertNonEmptyString(sessionId, name);
    const session = this.sessions.get(sessionId);
    if (!session)
      throw new InvalidInputError(`${name} ${JSON.stringify(sessionId)} is not a known iteration session`);
    return session;
  }
}
