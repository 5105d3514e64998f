import { ConfigurationError, InMemoryStateMachine, InvalidInputError, ManualClock } from '@loopguard/core';
import { GuardMonitor } from '@loopguard/core/guards';
import { InMemoryIterationStore } from '@loopguard/core/iteration';
import type { IterationConfig } from '@loopguard/core/seeds';
import { describe, expect, it, vi } from 'vitest';
import { type IterationGuardTrigger, IterationSessions } from '../src/index.js';
import { captureLogger, makeLoop, T0 } from './helpers.js';

function setup(taskId = 'T1') {
  const clock = new ManualClock(T0);
  const stateMachine = new InMemoryStateMachine({ clock });
  stateMachine.upsertTask({ id: taskId, title: 'Make the tests pass' });
  const store = new InMemoryIterationStore();
  const log = captureLogger();
  const sessions = new IterationSessions({ stateMachine, store, clock, logger: log.logger });
  const triggers: IterationGuardTrigger[] = [];
  sessions.on('guardTriggered', (t) => triggers.push(t));
  return { clock, stateMachine, store, sessions, triggers, log };
}

const config = (overrides: Partial<IterationConfig> = {}): IterationConfig => ({
  maxIterations: 10,
  completionPromises: ['All tests pass'],
  ...overrides,
});

/** Runs `nextIteration` + `recordValidation` for each validation; all must be allowed. */
function iterate(
  s: ReturnType<typeof setup>,
  sessionId: string,
  validations: Array<Parameters<IterationSessions['recordValidation']>[1]>,
) {
  for (const validation of validations) {
    const next = s.sessions.nextIteration(sessionId);
    expect(next.ok).toBe(true);
    s.clock.advance(1_000);
    s.sessions.recordValidation(sessionId, validation);
  }
}

describe('IterationSessions', () => {
  it('startIteration stores the session and a start checkpoint and moves the task to in_progress', () => {
    const s = setup();
    const started = vi.fn();
    s.sessions.on('sessionStarted', started);
    const { session, checkpoint } = s.sessions.startIteration('T1', config(), {
      agentContext: { prompt: 'fix it' },
    });
    expect(session).toMatchObject({ taskId: 'T1', status: 'active', endReason: null, createdAt: T0 });
    expect(session.config).toEqual(config());
    expect(checkpoint).toMatchObject({
      sessionId: session.id,
      taskId: 'T1',
      iterationNumber: 0,
      trigger: 'start',
      agentContext: { prompt: 'fix it' },
      createdAt: T0,
    });
    expect(s.stateMachine.getTask('T1')?.status).toBe('in_progress');
    expect(started).toHaveBeenCalledWith(session, checkpoint);
  });

  it('markInProgress: false leaves the task status alone; an injected GuardMonitor is fed', () => {
    const clock = new ManualClock(T0);
    const stateMachine = new InMemoryStateMachine({ clock });
    stateMachine.upsertTask({ id: 'T1' });
    const monitor = new GuardMonitor();
    const sessions = new IterationSessions({ stateMachine, clock, markInProgress: false, monitor });
    const { session } = sessions.startIteration('T1', config({ maxIterations: 1 }));
    expect(stateMachine.getTask('T1')?.status).toBe('pending');
    sessions.nextIteration(session.id);
    sessions.recordValidation(session.id, { passed: true });
    sessions.nextIteration(session.id);
    expect(monitor.snapshot()).toMatchObject({
      iterations: 1,
      blockedRuns: 1,
      guardTriggers: { max_iterations: 1 },
    });
    expect(sessions.store).toBeInstanceOf(InMemoryIterationStore);
  });

  it('rejects bad input naming the argument', () => {
    const s = setup();
    expect(() => s.sessions.startIteration('', config())).toThrow(InvalidInputError);
    expect(() => s.sessions.startIteration('', config())).toThrow(/taskId must be a non-empty string/);
    expect(() => s.sessions.startIteration('T404', config())).toThrow(
      /taskId "T404" is not a task the state machine knows/,
    );
    expect(() => s.sessions.startIteration('T1', { maxIterations: 0, completionPromises: [] })).toThrow(
      ConfigurationError,
    );
    expect(() => s.sessions.startIteration('T1', { maxIterations: 0, completionPromises: [] })).toThrow(
      /"maxIterations"/,
    );
    const { session } = s.sessions.startIteration('T1', config());
    expect(() => s.sessions.startIteration('T1', config())).toThrow(
      /already has an active iteration session/,
    );
    expect(() => s.sessions.nextIteration('nope')).toThrow(
      /sessionId "nope" is not a known iteration session/,
    );
    expect(() => s.sessions.recordValidation(session.id, { passed: true })).toThrow(
      /no iteration in progress: call nextIteration first/,
    );
    s.sessions.nextIteration(session.id);
    expect(() => s.sessions.recordValidation(session.id, { passed: 'yes' } as never)).toThrow(
      /record\.validationResult\.passed must be a boolean/,
    );
    expect(() => s.sessions.recordValidation(session.id, { passed: true }, { output: 42 } as never)).toThrow(
      /options\.output must be a string/,
    );
    s.sessions.recordValidation(session.id, { passed: true });
    expect(() => s.sessions.recordValidation(session.id, { passed: true })).toThrow(
      /iteration 1 .* is already recorded/,
    );
    expect(() => new IterationSessions({ stateMachine: {} as never })).toThrow(
      /"stateMachine" must implement StateMachine/,
    );
    // checked against every method the sessions call (getTask too, not only transition and transaction)
    const { getTask: _, ...noGetTask } = bindAll(s.stateMachine);
    expect(() => new IterationSessions({ stateMachine: noGetTask as never })).toThrow(
      /"stateMachine" must implement StateMachine \(missing getTask\(\)\)/,
    );
    const partialStore = { addCheckpoint() {} };
    expect(
      () => new IterationSessions({ stateMachine: s.stateMachine, store: partialStore as never }),
    ).toThrow(/"store" must implement IterationStore \(missing createSession\(\), getSession\(\)/);
  });

  it('nextIteration stores an iteration checkpoint while the guards allow it', () => {
    const s = setup();
    const { session } = s.sessions.startIteration('T1', config());
    const first = s.sessions.nextIteration(session.id, { agentContext: { attempt: 'first' } });
    expect(first).toMatchObject({
      ok: true,
      iteration: 1,
      checkpoint: { iterationNumber: 1, trigger: 'iteration', agentContext: { attempt: 'first' } },
    });
    s.sessions.recordValidation(session.id, {
      passed: false,
      score: 0.2,
      flags: [{ message: 'Error in file: /src/a.ts' }],
    });
    const second = s.sessions.nextIteration(session.id);
    expect(second).toMatchObject({ ok: true, iteration: 2 });
    expect(s.sessions.getSession(session.id)?.history).toEqual([
      expect.objectContaining({
        iteration: 1,
        validationResult: { passed: false, score: 0.2, flags: [{ message: 'Error in file: /src/a.ts' }] },
        output: null,
        completionPromise: null,
      }),
    ]);
    expect(s.sessions.getGuardStatistics()).toMatchObject({
      checks: 2,
      blocked: 0,
      byGuard: {},
      lastBlock: null,
    });
  });

  it('max_iterations: blocks the task, stores the error checkpoint and returns { error, blockedBy }', () => {
    const s = setup();
    const blocked = vi.fn();
    s.sessions.on('sessionBlocked', blocked);
    const { session } = s.sessions.startIteration('T1', config({ maxIterations: 2 }));
    iterate(s, session.id, [{ passed: true }, { passed: true }]);

    const result = s.sessions.nextIteration(session.id);

    expect(result).toMatchObject({
      ok: false,
      error: 'Iteration 3 exceeds maximum of 2. Circuit breaker triggered.',
      blockedBy: 'max_iterations',
    });
    if (result.ok) throw new Error('unreachable');
    const { error, blockedBy } = result; // the seed's return shape
    expect({ error, blockedBy }).toEqual({
      error: 'Iteration 3 exceeds maximum of 2. Circuit breaker triggered.',
      blockedBy: 'max_iterations',
    });
    expect(s.stateMachine.getTask('T1')).toMatchObject({
      status: 'blocked',
      blockedReason: 'Iteration safety guard: max_iterations',
    });
    expect(result.checkpoint).toMatchObject({
      sessionId: session.id,
      taskId: 'T1',
      iterationNumber: 2,
      trigger: 'error',
      agentContext: {
        safetyGuardTriggered: 'max_iterations',
        message: 'Iteration 3 exceeds maximum of 2. Circuit breaker triggered.',
      },
      createdAt: T0 + 2_000,
    });
    expect(Object.keys(result.checkpoint.agentContext ?? {})).toEqual(['safetyGuardTriggered', 'message']);
    expect(s.store.latestCheckpoint(session.id)).toEqual(result.checkpoint);
    expect(result.session).toMatchObject({
      status: 'blocked',
      endReason: 'Iteration safety guard: max_iterations',
    });
    expect(blocked).toHaveBeenCalledWith(result.session);
    expect(s.triggers).toEqual([
      {
        sessionId: session.id,
        taskId: 'T1',
        guard: 'max_iterations',
        message: result.error,
        iteration: 3,
        at: T0 + 2_000,
      },
    ]);
    expect(s.log.messages()).toContain('Safety guard triggered: max_iterations');
    expect(s.sessions.monitor.snapshot().guardTriggers).toMatchObject({ max_iterations: 1 });
    expect(() => s.sessions.nextIteration(session.id)).toThrow(
      /is blocked \(Iteration safety guard: max_iterations\), not active/,
    );
    expect(s.sessions.getSession(session.id)?.checkpoints.map((c) => c.trigger)).toEqual([
      'start',
      'iteration',
      'iteration',
      'error',
    ]);
  });

  it('circuit_breaker: consecutive failed validations (threshold from the config, default 3)', () => {
    const s = setup();
    const { session } = s.sessions.startIteration('T1', config());
    iterate(s, session.id, [{ passed: true }, { passed: false }, { passed: false }, { passed: false }]);
    const result = s.sessions.nextIteration(session.id);
    expect(result).toMatchObject({ ok: false, blockedBy: 'circuit_breaker' });
    if (result.ok) throw new Error('unreachable');
    expect(result.error).toBe(
      'Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3). Manual intervention required.',
    );
    expect(result.checkpoint).toMatchObject({
      iterationNumber: 4,
      agentContext: { safetyGuardTriggered: 'circuit_breaker' },
    });
    expect(s.stateMachine.getTask('T1')?.blockedReason).toBe('Iteration safety guard: circuit_breaker');
    // statistics and the monitor speak the guards' own names, as GuardSet does
    const stats = s.sessions.getGuardStatistics();
    expect(stats.byGuard).toEqual({ consecutive_failures: 1 });
    expect(stats.lastBlock?.guard).toBe('consecutive_failures');
    expect(stats.monitor?.guardTriggers.consecutive_failures).toBe(1);

    const t = setup('T2');
    const two = t.sessions.startIteration('T2', config({ circuitBreakerThreshold: 2 })).session;
    iterate(t, two.id, [{ passed: false }, { passed: false }]);
    expect(t.sessions.nextIteration(two.id)).toMatchObject({ ok: false, blockedBy: 'circuit_breaker' });
  });

  it('quality_regression: declining scores', () => {
    const s = setup();
    const { session } = s.sessions.startIteration('T1', config());
    iterate(s, session.id, [
      { passed: true, score: 0.9 },
      { passed: true, score: 0.8 },
      { passed: true, score: 0.7 },
      { passed: true, score: 0.6 },
    ]);
    const result = s.sessions.nextIteration(session.id);
    expect(result).toMatchObject({ ok: false, blockedBy: 'quality_regression' });
    if (result.ok) throw new Error('unreachable');
    expect(result.error).toMatch(/^Quality regression detected/);
    expect(s.stateMachine.getTask('T1')?.blockedReason).toBe('Iteration safety guard: quality_regression');
    expect(result.checkpoint.agentContext).toEqual({
      safetyGuardTriggered: 'quality_regression',
      message: result.error,
    });
  });

  it('thrashing: the same file flagged in five iterations', () => {
    const s = setup();
    const { session } = s.sessions.startIteration('T1', config());
    const flagged = { passed: true, flags: [{ message: 'Error in file: /src/api.ts' }] };
    iterate(s, session.id, [flagged, flagged, flagged, flagged, flagged]);
    const result = s.sessions.nextIteration(session.id);
    expect(result).toMatchObject({
      ok: false,
      blockedBy: 'thrashing',
      error: 'Thrashing detected: 1 file(s) modified 5+ times without progress: /src/api.ts',
    });
    expect(s.stateMachine.getTask('T1')?.blockedReason).toBe('Iteration safety guard: thrashing');
    expect(s.sessions.getGuardStatistics()).toMatchObject({
      checks: 6,
      blocked: 1,
      byGuard: { thrashing: 1 },
    });
  });

  it('<promise>COMPLETE</promise> with a passing validation completes the task and the session', () => {
    const s = setup();
    const completed = vi.fn();
    s.sessions.on('sessionCompleted', completed);
    const { session } = s.sessions.startIteration('T1', config());
    s.sessions.nextIteration(session.id);
    const result = s.sessions.recordValidation(
      session.id,
      { passed: true, score: 1 },
      { output: 'All green.\n<promise>COMPLETE</promise>' },
    );
    expect(result).toMatchObject({
      completion: { kind: 'complete', promise: '<promise>COMPLETE</promise>' },
      completionAccepted: true,
      session: { status: 'completed' },
      record: {
        iteration: 1,
        completionPromise: '<promise>COMPLETE</promise>',
        output: 'All green.\n<promise>COMPLETE</promise>',
      },
    });
    expect(s.stateMachine.getTask('T1')?.status).toBe('done');
    expect(s.store.latestCheckpoint(session.id)).toMatchObject({ trigger: 'complete', iterationNumber: 1 });
    expect(completed).toHaveBeenCalledOnce();
    expect(s.sessions.getGuardStatistics().monitor).toMatchObject({
      completedRuns: 1,
      averageIterationsToCompletion: 1,
    });
    expect(() => s.sessions.nextIteration(session.id)).toThrow(/is completed/);
  });

  it('a configured completion promise counts; COMPLETE with a failed validation is not accepted', () => {
    const s = setup();
    const { session } = s.sessions.startIteration('T1', config());
    s.sessions.nextIteration(session.id);
    const rejected = s.sessions.recordValidation(
      session.id,
      { passed: false },
      { output: '<promise>COMPLETE</promise>' },
    );
    expect(rejected).toMatchObject({
      completion: { kind: 'complete' },
      completionAccepted: false,
      session: { status: 'active' },
    });
    expect(s.stateMachine.getTask('T1')?.status).toBe('in_progress');
    s.sessions.nextIteration(session.id);
    const kept = s.sessions.recordValidation(
      session.id,
      { passed: true },
      { output: '<promise> All tests pass </promise>' },
    );
    expect(kept).toMatchObject({
      completion: { kind: 'complete', text: 'All tests pass' },
      completionAccepted: true,
    });
    expect(s.stateMachine.getTask('T1')?.status).toBe('done');
  });

  it('<promise>BLOCKED</promise> blocks the task and ends the session', () => {
    const s = setup();
    const { session } = s.sessions.startIteration('T1', config());
    s.sessions.nextIteration(session.id);
    const result = s.sessions.recordValidation(
      session.id,
      { passed: false },
      { output: 'Need credentials. <promise>BLOCKED</promise>' },
    );
    expect(result).toMatchObject({
      completion: { kind: 'blocked' },
      completionAccepted: true,
      session: { status: 'blocked' },
    });
    expect(s.stateMachine.getTask('T1')).toMatchObject({
      status: 'blocked',
      blockedReason: 'Agent reported <promise>BLOCKED</promise> at iteration 1',
    });
    expect(s.store.latestCheckpoint(session.id)).toMatchObject({ trigger: 'blocked' });
  });

  it('feeds OrchestratorLoop.getStatus().guards and re-emits guardTriggered through the loop', () => {
    const s = setup();
    const h = makeLoop({ stateMachine: s.stateMachine, guardStatistics: s.sessions });
    const viaLoop: IterationGuardTrigger[] = [];
    h.loop.on('guardTriggered', (t) => viaLoop.push(t));
    const { session } = s.sessions.startIteration('T1', config({ maxIterations: 1 }));
    iterate(s, session.id, [{ passed: true }]);
    s.sessions.nextIteration(session.id);
    expect(viaLoop).toHaveLength(1);
    expect(h.loop.getStatus().guards).toMatchObject({
      checks: 2,
      blocked: 1,
      byGuard: { max_iterations: 1 },
      lastBlock: { taskId: 'T1', guard: 'max_iterations', iteration: 2 },
    });
  });
});

/** The object's methods (own and inherited) as plain bound functions. */
function bindAll(object: object): Record<string, unknown> {
  const methods: Record<string, unknown> = {};
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(object))) {
    const value = (object as Record<string, unknown>)[name];
    if (name !== 'constructor' && typeof value === 'function') methods[name] = value.bind(object);
  }
  return methods;
}
