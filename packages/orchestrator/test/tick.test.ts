import { ConfigurationError, InMemoryStateMachine, LoopDetector, ManualClock } from '@loopguard/core';
import { describe, expect, it, vi } from 'vitest';
import {
  type Decision,
  OrchestratorLoop,
  type OrchestratorLoopOptions,
  type Policy,
  type Timer,
} from '../src/index.js';
import { makeLoop, report, runTask, scriptedPolicy, T0 } from './helpers.js';

describe('OrchestratorLoop.tick', () => {
  it('reads state, decides, checks for a loop before executing and records the attempt after', async () => {
    const order: string[] = [];
    const policy: Policy<string> = {
      getSystemState: () => {
        order.push('getSystemState');
        return 'state';
      },
      decide: (state) => {
        order.push(`decide(${state})`);
        return runTask('T1');
      },
    };
    const h = makeLoop({
      policy,
      executor: async () => {
        order.push('execute');
        h.clock.advance(1_200);
        return report('in_progress', ['Wrote the parser'], ['flaky CI']);
      },
    });
    const detect = vi.spyOn(h.loop.detector, 'detectLoop');
    const record = vi.spyOn(h.loop.detector, 'recordAttemptWithTransition');
    detect.mockImplementation(function (this: LoopDetector, taskId) {
      order.push('detectLoop');
      return LoopDetector.prototype.detectLoop.call(this, taskId);
    });
    record.mockImplementation(function (this: LoopDetector, ...args) {
      order.push('recordAttemptWithTransition');
      return LoopDetector.prototype.recordAttemptWithTransition.apply(this, args);
    });

    const result = await h.loop.tick();

    expect(order).toEqual([
      'getSystemState',
      'decide(state)',
      'detectLoop',
      'execute',
      'recordAttemptWithTransition',
    ]);
    expect(record).toHaveBeenCalledWith({
      taskId: 'T1',
      status: 'in_progress',
      blockers: ['flaky CI'],
      completedWork: ['Wrote the parser'],
      sessionId: 'session_1',
      reason: 'Executor reported in_progress (session_1)',
    });
    expect(result).toMatchObject({
      success: true,
      action: { type: 'run_task', task: { id: 'T1' } },
      duration: 1_200,
      tickNumber: 1,
      startedAt: T0,
      details: {
        sessionId: 'session_1',
        status: 'in_progress',
        completedWork: ['Wrote the parser'],
        blockers: ['flaky CI'],
      },
    });
    expect(result.details.attempt).toMatchObject({
      taskId: 'T1',
      timestamp: T0 + 1_200,
      sessionId: 'session_1',
    });
  });

  it('on a loop applies the recovery, skips execution and returns loopRecoveryApplied', async () => {
    const h = makeLoop({ policy: scriptedPolicy([runTask('T3.4.2')]) });
    h.stateMachine.upsertTask({ id: 'T3.4.2', status: 'done' });
    for (let i = 0; i < 3; i++)
      h.loop.detector.recordAttempt('T3.4.2', 'done', [], [`check ${i}`], `session_${i}`);
    const loopDetected = vi.fn();
    const recoveryApplied = vi.fn();
    h.loop.on('loopDetected', loopDetected);
    h.loop.on('recoveryApplied', recoveryApplied);

    const result = await h.loop.tick();

    expect(h.executorCalls).toHaveLength(0);
    expect(result.success).toBe(true);
    expect(result.details.loopRecoveryApplied).toBe(true);
    expect(result.details.loopDetection).toMatchObject({
      loopType: 'completed_task_revisit',
      recommendation: 'force_next',
    });
    expect(result.details.recovery).toMatchObject({ applied: true, action: 'force_next' });
    expect(result.details.attempt).toBeUndefined();
    expect(loopDetected).toHaveBeenCalledOnce();
    expect(recoveryApplied).toHaveBeenCalledOnce();
    expect(h.stateMachine.listContextEntries({ topics: ['loop_recovery'] })).toHaveLength(1);
  });

  it('applies the reported status to a known task in the same step as the attempt', async () => {
    const h = makeLoop({
      policy: scriptedPolicy([runTask('T1'), runTask('T1')]),
      executor: async () => report('blocked', [], ['missing auth token']),
    });
    h.stateMachine.upsertTask({ id: 'T1' });
    await h.loop.tick();
    expect(h.stateMachine.getTask('T1')).toMatchObject({
      status: 'blocked',
      blockedReason: 'missing auth token',
    });
    const events = h.stateMachine.listTaskEvents('T1');
    await h.loop.tick();
    expect(h.stateMachine.listTaskEvents('T1')).toHaveLength(events.length); // same status: no transition
  });

  it('does not change the task when applyReportedStatus is false', async () => {
    const h = makeLoop({
      policy: scriptedPolicy([runTask('T1')]),
      executor: async () => report('done', ['all of it']),
      applyReportedStatus: false,
    });
    h.stateMachine.upsertTask({ id: 'T1' });
    const result = await h.loop.tick();
    expect(result.details.attempt?.status).toBe('done');
    expect(h.stateMachine.getTask('T1')?.status).toBe('pending');
  });

  it('runs an idle decision without executing', async () => {
    const h = makeLoop({ policy: scriptedPolicy([{ type: 'idle', reason: 'roadmap empty' }]) });
    const result = await h.loop.tick();
    expect(result).toMatchObject({
      success: true,
      action: { type: 'idle' },
      details: { idleReason: 'roadmap empty' },
    });
    expect(h.executorCalls).toHaveLength(0);
  });

  it('hands other actions to the action handler, and fails them without one', async () => {
    const handled: Decision[] = [];
    const action: Decision = { type: 'action', name: 'plan_next', payload: { from: 'T3.4.2' } };
    const withHandler = makeLoop({
      policy: scriptedPolicy([action]),
      actionHandler: (decision) => {
        handled.push(decision);
      },
    });
    expect(await withHandler.loop.tick()).toMatchObject({ success: true, action });
    expect(handled).toEqual([action]);

    const without = makeLoop({ policy: scriptedPolicy([action]) });
    const result = await without.loop.tick();
    expect(result.success).toBe(false);
    expect(result.details.error?.message).toMatch(/No actionHandler configured for action "plan_next"/);
  });

  it('passes the quality monitor verdict through details and an event', async () => {
    const reviewed = vi.fn();
    const h = makeLoop({
      policy: scriptedPolicy([runTask('T1')]),
      qualityMonitor: { review: async (_task, r) => ({ passed: r.status === 'done', score: 0.5 }) },
      executor: async () => report('done', ['x']),
    });
    h.loop.on('qualityReviewed', reviewed);
    const result = await h.loop.tick();
    expect(result.details.quality).toEqual({ passed: true, score: 0.5 });
    expect(reviewed).toHaveBeenCalledWith('T1', { passed: true, score: 0.5 });
  });

  it('uses an injected detector and re-emits its events', async () => {
    const clock = new ManualClock(T0);
    const stateMachine = new InMemoryStateMachine({ clock });
    const detector = new LoopDetector(stateMachine, { clock, maxAttempts: 2, maxAttemptsBeforeForceNext: 2 });
    const h = makeLoop({
      stateMachine,
      detector,
      policy: scriptedPolicy([runTask('T1'), runTask('T1'), runTask('T1')]),
    });
    const attempts = vi.fn();
    h.loop.on('attemptRecorded', attempts);
    expect(h.loop.detector).toBe(detector);
    h.loop.detector.recordAttempt('T1', 'done', [], [], 's');
    h.loop.detector.recordAttempt('T1', 'done', [], [], 's');
    expect(attempts).toHaveBeenCalledTimes(2);
    expect((await h.loop.tick()).details.loopRecoveryApplied).toBe(true); // maxAttempts 2 in force
  });

  it('passes detectorOptions to the detector it creates', () => {
    const h = makeLoop({
      detectorOptions: { maxAttempts: 4, maxAttemptsBeforeForceNext: 6, enableAutoUnblock: false },
    });
    expect(h.loop.detector.options).toMatchObject({
      maxAttempts: 4,
      maxAttemptsBeforeForceNext: 6,
      enableAutoUnblock: false,
    });
  });

  it('rejects invalid options with a ConfigurationError naming the option', () => {
    const clock = new ManualClock(T0);
    const stateMachine = new InMemoryStateMachine({ clock });
    const policy = scriptedPolicy([]);
    const executor = async () => report('done');
    expect(() => makeLoop({ executorTimeout: -1 })).toThrow(ConfigurationError);
    expect(() => makeLoop({ executorTimeout: -1 })).toThrow(/"executorTimeout"/);
    expect(() => makeLoop({ maxIdleTicks: 0 })).toThrow(/"maxIdleTicks"/);
    expect(() => makeLoop({ idleBackoffFactor: 0.5 })).toThrow(/"idleBackoffFactor"/);
    expect(() => makeLoop({ policy: {} as Policy<unknown> })).toThrow(
      /"policy" must have getSystemState\(\) and decide\(\)/,
    );
    expect(() =>
      makeLoop({
        detector: new LoopDetector(stateMachine, { clock }),
        detectorOptions: { maxAttempts: 3 },
      }),
    ).toThrow(/"detectorOptions" cannot be combined with detector/);
    expect(() => makeLoop({ ...({ intervall: 5 } as object) })).toThrow(ConfigurationError);
    const bad = { stateMachine: null, policy, executor } as unknown as OrchestratorLoopOptions;
    expect(() => new OrchestratorLoop(bad)).toThrow(/"stateMachine" must implement StateMachine/);
    expect(() => new OrchestratorLoop({ stateMachine, policy, executor, timer: {} as Timer })).toThrow(
      /"timer"/,
    );
  });

  it('getStatus reports running, ticks, the last tick and the seed dashboard map', async () => {
    const h = makeLoop({ policy: scriptedPolicy([runTask('T3.4.2'), runTask('T7.1.2'), runTask('T7.1.2')]) });
    expect(h.loop.getStatus()).toMatchObject({
      running: false,
      tickCount: 0,
      lastTickAt: null,
      lastResult: null,
      loopDetection: {},
      guards: null,
      breaker: null,
    });
    await h.loop.tick();
    h.clock.advance(100_000);
    await h.loop.tick();
    await h.loop.tick();
    const status = h.loop.getStatus();
    expect(status.tickCount).toBe(3);
    expect(status.lastTickAt).toBe(T0 + 100_000);
    expect(status.lastResult?.tickNumber).toBe(3);
    expect(status.loopDetection).toEqual({
      'T3.4.2': { attemptCount: 1, lastAttempt: T0 },
      'T7.1.2': { attemptCount: 2, lastAttempt: T0 + 100_000 },
    });
    expect(
      JSON.parse(
        JSON.stringify({
          running: status.running,
          tickCount: status.tickCount,
          loopDetection: status.loopDetection,
        }),
      ),
    ).toEqual({
      running: false,
      tickCount: 3,
      loopDetection: {
        'T3.4.2': { attemptCount: 1, lastAttempt: 1_760_825_000_000 },
        'T7.1.2': { attemptCount: 2, lastAttempt: 1_760_825_100_000 },
      },
    });
  });

  it('serialises direct tick() calls: they never overlap', async () => {
    let active = 0;
    let maxActive = 0;
    const h = makeLoop({
      policy: scriptedPolicy([runTask('A'), runTask('B'), runTask('C')]),
      executor: async (task) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await Promise.resolve();
        await Promise.resolve();
        active--;
        return report('in_progress', [task.id]);
      },
    });
    const results = await Promise.all([h.loop.tick(), h.loop.tick(), h.loop.tick()]);
    expect(results.map((r) => r.tickNumber)).toEqual([1, 2, 3]);
    expect(maxActive).toBe(1);
  });
});
