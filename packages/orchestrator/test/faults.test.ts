import {
  InMemoryStateMachine,
  type LoopGuardError,
  ManualClock,
  RunError,
  type StateMachine,
  StorageError,
} from '@loopguard/core';
import { describe, expect, it, vi } from 'vitest';
import type { ExecutionResult, Executor } from '../src/index.js';
import { deferred, makeLoop, report, runTask, scriptedPolicy, T0, until } from './helpers.js';

function failures(h: ReturnType<typeof makeLoop>) {
  const failed: Array<[ExecutionResult, LoopGuardError]> = [];
  h.loop.on('tickFailed', (result, error) => failed.push([result, error]));
  return failed;
}

describe('OrchestratorLoop faults', () => {
  it('an executor that throws fails the tick, records an error attempt, and the loop goes on', async () => {
    let calls = 0;
    const h = makeLoop({
      policy: scriptedPolicy([runTask('T1'), runTask('T1')]),
      executor: async () => {
        if (++calls === 1) throw new Error('agent crashed');
        return report('in_progress', ['recovered']);
      },
    });
    const failed = failures(h);
    h.loop.start();
    await h.loop.whenIdle();

    expect(failed).toHaveLength(1);
    const [result, error] = failed[0] ?? [];
    expect(error).toBeInstanceOf(RunError);
    expect(error?.code).toBe('run_error');
    expect(error?.message).toBe('Executor threw on task T1: agent crashed');
    expect(error?.cause).toMatchObject({ message: 'agent crashed' });
    expect(result).toMatchObject({ success: false, tickNumber: 1, details: { error } });
    expect(result?.details.attempt).toMatchObject({
      taskId: 'T1',
      status: 'blocked',
      blockers: ['run_error: Executor threw on task T1: agent crashed'],
      completedWork: [],
      sessionId: 'session_1',
    });

    h.timer.advance(30_000); // the next interval tick still runs
    await h.loop.whenIdle();
    expect(h.loop.getStatus().lastResult).toMatchObject({ success: true, tickNumber: 2 });
    expect(h.loop.running).toBe(true);
    await h.loop.stop();
  });

  it('an executor that throws synchronously is handled the same way', async () => {
    const h = makeLoop({
      policy: scriptedPolicy([runTask('T1')]),
      executor: (() => {
        throw new TypeError('not callable today');
      }) as Executor,
    });
    const result = await h.loop.tick();
    expect(result.success).toBe(false);
    expect(result.details.error?.message).toBe('Executor threw on task T1: not callable today');
  });

  it('an executor that hangs past its timeout is aborted, the tick fails with timeout, and the loop goes on', async () => {
    const hung = deferred<never>();
    const h = makeLoop({
      policy: scriptedPolicy([runTask('T1'), runTask('T2')]),
      executorTimeout: 60_000,
      executor: (task) => (task.id === 'T1' ? hung.promise : Promise.resolve(report('done', ['T2 built']))),
    });
    const failed = failures(h);
    h.loop.start();
    await until(() => h.executorCalls.length === 1);
    const { signal } = h.executorCalls[0] ?? {};
    expect(signal?.aborted).toBe(false);

    h.timer.advance(59_999);
    await Promise.resolve();
    expect(failed).toHaveLength(0);
    h.timer.advance(1);
    await h.loop.whenIdle();

    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(RunError);
    expect(failed).toHaveLength(1);
    const [result, error] = failed[0] ?? [];
    expect(error?.code).toBe('timeout');
    expect(error?.message).toBe('Executor timed out after 60000 ms on task T1');
    expect(result?.duration).toBe(60_000);
    expect(result?.details.attempt).toMatchObject({
      status: 'blocked',
      blockers: ['timeout: Executor timed out after 60000 ms on task T1'],
    });

    h.timer.advance(30_000);
    await h.loop.whenIdle();
    expect(h.loop.getStatus().lastResult).toMatchObject({
      success: true,
      details: { completedWork: ['T2 built'] },
    });
    await h.loop.stop();
  });

  it('uses a 10 minute executor timeout by default', async () => {
    const h = makeLoop({ policy: scriptedPolicy([runTask('T1')]), executor: () => new Promise(() => {}) });
    const pending = h.loop.tick();
    await until(() => h.executorCalls.length === 1);
    expect(h.timer.nextDueAt()).toBe(T0 + 600_000);
    h.timer.advance(600_000);
    expect((await pending).details.error?.code).toBe('timeout');
  });

  it.each([
    ['null', null, /the report/],
    ['a string', 'done', /the report/],
    ['a bad status', { status: 'finished', completedWork: [], blockers: [] }, /"status"/],
    ['missing blockers', { status: 'done', completedWork: [] }, /"blockers"/],
    ['non-string work', { status: 'done', completedWork: [42], blockers: [] }, /"completedWork\.0"/],
  ])('an executor that returns garbage (%s) fails the tick', async (_name, garbage, pattern) => {
    const h = makeLoop({ policy: scriptedPolicy([runTask('T1')]), executor: async () => garbage as never });
    const failed = failures(h);
    const result = await h.loop.tick();
    expect(result.success).toBe(false);
    expect(failed).toHaveLength(1);
    expect(result.details.error?.code).toBe('run_error');
    expect(result.details.error?.message).toMatch(/^Executor returned an invalid report: /);
    expect(result.details.error?.message).toMatch(pattern);
    expect(result.details.attempt?.status).toBe('blocked');
    expect(result.details.attempt?.blockers[0]).toMatch(/^run_error: Executor returned an invalid report/);
  });

  it('a policy that throws or decides garbage fails the tick without an attempt', async () => {
    const throwing = makeLoop({
      policy: {
        getSystemState: () => {
          throw new Error('roadmap unreadable');
        },
        decide: () => ({ type: 'idle' }),
      },
    });
    const r1 = await throwing.loop.tick();
    expect(r1).toMatchObject({ success: false, action: null });
    expect(r1.details.error?.message).toBe('Tick failed: roadmap unreadable');

    const garbage = makeLoop({
      policy: { getSystemState: () => 0, decide: () => ({ type: 'run_task', task: {} }) as never },
    });
    const r2 = await garbage.loop.tick();
    expect(r2.details.error?.message).toBe(
      'Policy returned an invalid decision: "task.id" must be a non-empty string, got undefined',
    );
    expect(garbage.loop.getStatus().loopDetection).toEqual({});
  });

  it('a storage error is emitted as a typed error event, rejects tick(), and is logged', async () => {
    const clock = new ManualClock(T0);
    const inner = new InMemoryStateMachine({ clock });
    const broken = new StorageError('storage_error', 'disk I/O error writing attempts');
    const stateMachine: StateMachine = Object.assign(Object.create(inner) as StateMachine, {
      transaction: () => {
        throw broken;
      },
    });
    const h = makeLoop({ stateMachine, policy: scriptedPolicy([runTask('T1')]) });
    const errors: StorageError[] = [];
    h.loop.on('error', (error) => errors.push(error));
    const failed = failures(h);

    await expect(h.loop.tick()).rejects.toBe(broken);
    expect(errors).toEqual([broken]);
    expect(failed.map(([, e]) => e)).toEqual([broken]);
    expect(h.log.lines.some((l) => l.level === 50 && /Storage error in tick 1/.test(l.msg))).toBe(true);
  });

  it('a storage error stops the scheduled loop (reason storage_error) unless stopOnStorageError is false', async () => {
    const make = (stopOnStorageError: boolean) => {
      const h = makeLoop({
        policy: scriptedPolicy([runTask('T1'), runTask('T1')]),
        stopOnStorageError,
      });
      const stopped: string[] = [];
      const errors: unknown[] = [];
      h.loop.on('stopped', ({ reason }) => stopped.push(reason));
      h.loop.on('error', (e) => errors.push(e));
      vi.spyOn(h.loop.detector, 'recordAttemptWithTransition').mockImplementation(() => {
        throw new StorageError('storage_error', 'database is locked');
      });
      return { h, stopped, errors };
    };

    const stopping = make(true);
    stopping.h.loop.start();
    await stopping.h.loop.whenIdle();
    expect(stopping.errors).toHaveLength(1);
    expect(stopping.stopped).toEqual(['storage_error']);
    expect(stopping.h.loop.running).toBe(false);
    expect(stopping.h.loop.getStatus().lastStopReason).toBe('storage_error');
    expect(stopping.h.timer.pendingCount).toBe(0);

    const going = make(false);
    going.h.loop.start();
    await going.h.loop.whenIdle();
    expect(going.errors).toHaveLength(1);
    expect(going.h.loop.running).toBe(true);
    going.h.timer.advance(30_000);
    await going.h.loop.whenIdle();
    expect(going.errors).toHaveLength(2);
    await going.h.loop.stop();
    expect(going.stopped).toEqual(['requested']);
  });

  it('a storage error while recording the error attempt of a failed executor is still surfaced', async () => {
    const h = makeLoop({
      policy: scriptedPolicy([runTask('T1')]),
      executor: async () => {
        throw new Error('boom');
      },
    });
    vi.spyOn(h.loop.detector, 'recordAttempt').mockImplementation(() => {
      throw new StorageError('storage_error', 'disk full');
    });
    const errors: unknown[] = [];
    h.loop.on('error', (e) => errors.push(e));
    await expect(h.loop.tick()).rejects.toThrow('disk full');
    expect(errors).toHaveLength(1);
  });

  it('a listener that throws is logged and does not break the tick or the other listeners', async () => {
    const h = makeLoop({ policy: scriptedPolicy([runTask('T1')]) });
    const after = vi.fn();
    h.loop.on('tickCompleted', () => {
      throw new Error('dashboard listener bug');
    });
    h.loop.on('tickCompleted', after);
    h.loop.on('attemptRecorded', () => {
      throw new Error('attempt listener bug');
    });

    const result = await h.loop.tick();

    expect(result.success).toBe(true);
    expect(after).toHaveBeenCalledWith(result);
    const errors = h.log.lines.filter((l) => l.level === 50).map((l) => l.msg);
    expect(errors).toContain('Listener for tickCompleted threw');
    expect(errors).toContain('Listener for attemptRecorded threw');
    expect(h.loop.getStatus().loopDetection).toHaveProperty('T1');
  });

  it('a quality monitor that throws fails the tick after the attempt was recorded', async () => {
    const h = makeLoop({
      policy: scriptedPolicy([runTask('T1')]),
      qualityMonitor: {
        review: () => {
          throw new Error('linter missing');
        },
      },
    });
    const result = await h.loop.tick();
    expect(result.success).toBe(false);
    expect(result.details.error?.message).toMatch(/Quality monitor failed on task T1/);
    expect(result.details.attempt?.taskId).toBe('T1');
  });
});
