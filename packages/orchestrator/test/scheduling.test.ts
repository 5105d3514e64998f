import { EventEmitter } from 'node:events';
import { RunError } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import type { Decision, ExecutorReport } from '../src/index.js';
import { deferred, makeLoop, report, runTask, scriptedPolicy, T0, until } from './helpers.js';

const idlePolicy = () => ({ getSystemState: () => 0, decide: (): Decision => ({ type: 'idle' }) });

describe('OrchestratorLoop scheduling', () => {
  it('start() ticks at once, then every interval (default 30 s) while there is work', async () => {
    const h = makeLoop({ policy: { getSystemState: () => 0, decide: () => runTask('T1') } });
    const started: number[] = [];
    h.loop.on('started', ({ at }) => started.push(at));
    h.loop.start();
    h.loop.start(); // no second start
    await h.loop.whenIdle();
    expect(started).toEqual([T0]);
    expect(h.loop.getStatus()).toMatchObject({ running: true, tickCount: 1, currentInterval: 30_000 });
    expect(h.timer.nextDueAt()).toBe(T0 + 30_000);
    h.timer.advance(29_999);
    await h.loop.whenIdle();
    expect(h.loop.getStatus().tickCount).toBe(1);
    h.timer.advance(1);
    await h.loop.whenIdle();
    expect(h.loop.getStatus().tickCount).toBe(2);
    expect(h.executorCalls.map((c) => c.sessionId)).toEqual(['session_1', 'session_2']);
    await h.loop.stop();
  });

  it('a notify() or a scheduler taskQueued event triggers a tick at once', async () => {
    const queue = new EventEmitter();
    const h = makeLoop({
      policy: { getSystemState: () => 0, decide: () => runTask('T1') },
      scheduler: queue,
    });
    h.loop.notify(); // ignored while stopped
    queue.emit('taskQueued');
    await h.loop.whenIdle();
    expect(h.loop.getStatus().tickCount).toBe(0);

    h.loop.start();
    await h.loop.whenIdle();
    h.timer.advance(1_000);
    queue.emit('taskQueued', 'T9');
    await h.loop.whenIdle();
    expect(h.loop.getStatus().tickCount).toBe(2);
    expect(h.timer.nextDueAt()).toBe(T0 + 1_000 + 30_000); // the interval restarts after the event tick
    h.loop.notify();
    await h.loop.whenIdle();
    expect(h.loop.getStatus().tickCount).toBe(3);

    await h.loop.stop();
    expect(queue.listenerCount('taskQueued')).toBe(0);
    queue.emit('taskQueued');
    await h.loop.whenIdle();
    expect(h.loop.getStatus().tickCount).toBe(3);
  });

  it('never overlaps ticks under a burst of events: the burst gives one tick after the one in flight', async () => {
    let active = 0;
    let maxActive = 0;
    const gates: Array<ReturnType<typeof deferred<ExecutorReport>>> = [];
    const h = makeLoop({
      policy: { getSystemState: () => 0, decide: () => runTask('T1') },
      executor: async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        const gate = deferred<ExecutorReport>();
        gates.push(gate);
        try {
          return await gate.promise;
        } finally {
          active--;
        }
      },
    });
    h.loop.start();
    await until(() => gates.length === 1);
    for (let i = 0; i < 50; i++) h.loop.notify();
    h.timer.advance(30_000); // the interval is not armed during a tick: nothing fires
    gates[0]?.resolve(report('in_progress', ['a']));
    await until(() => gates.length === 2);
    for (let i = 0; i < 50; i++) h.loop.notify();
    gates[1]?.resolve(report('in_progress', ['b']));
    await until(() => gates.length === 3);
    gates[2]?.resolve(report('in_progress', ['c']));
    await h.loop.whenIdle();

    expect(maxActive).toBe(1);
    expect(h.loop.getStatus().tickCount).toBe(3);
    expect(h.timer.pendingCount).toBe(1); // only the next interval tick
    await h.loop.stop();
  });

  it('stop() during a slow tick aborts the executor through its signal and resolves after the tick', async () => {
    let finished = false;
    const h = makeLoop({
      policy: { getSystemState: () => 0, decide: () => runTask('T1') },
      executor: (_task, { signal }) =>
        new Promise<ExecutorReport>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            queueMicrotask(() => {
              finished = true;
              reject(signal.reason);
            });
          });
        }),
    });
    const stopped: string[] = [];
    const failed: string[] = [];
    h.loop.on('stopped', ({ reason }) => stopped.push(reason));
    h.loop.on('tickFailed', (_r, error) => failed.push(error.code));
    h.loop.start();
    await until(() => h.executorCalls.length === 1);
    const signal = h.executorCalls[0]?.signal;

    const stopping = h.loop.stop();
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(RunError);
    expect(signal?.reason).toMatchObject({ code: 'aborted' });
    expect(finished).toBe(false);
    await stopping;
    expect(finished).toBe(true);
    expect(failed).toEqual(['aborted']);
    expect(stopped).toEqual(['requested']);
    expect(h.loop.running).toBe(false);
    expect(h.timer.pendingCount).toBe(0);
    // an aborted run is not the task's fault: no attempt
    expect(h.loop.getStatus().loopDetection).toEqual({});
    expect(h.loop.getStatus().lastResult?.details.attempt).toBeUndefined();
  });

  it('stop() waits for an executor that ignores the abort and keeps its report', async () => {
    const gate = deferred<ExecutorReport>();
    const h = makeLoop({
      policy: { getSystemState: () => 0, decide: () => runTask('T1') },
      executor: () => gate.promise,
    });
    h.loop.start();
    await until(() => h.executorCalls.length === 1);
    let resolved = false;
    const stopping = h.loop.stop().then(() => {
      resolved = true;
    });
    await until(() => false, 50).catch(() => undefined);
    expect(resolved).toBe(false);
    gate.resolve(report('done', ['finished anyway']));
    await stopping;
    expect(h.loop.getStatus().lastResult).toMatchObject({ success: true, details: { status: 'done' } });
    expect(h.loop.getStatus().loopDetection).toHaveProperty('T1');
  });

  it('backs off while idle (doubling up to 5 min) and stops itself after maxIdleTicks', async () => {
    const h = makeLoop({ policy: idlePolicy(), maxIdleTicks: 7 });
    const stopped: string[] = [];
    h.loop.on('stopped', ({ reason }) => stopped.push(reason));
    h.loop.start();
    await h.loop.whenIdle();
    const gaps: number[] = [];
    let last = h.clock.now();
    while (h.loop.running) {
      const due = h.timer.nextDueAt();
      if (due === undefined) break;
      gaps.push(due - last);
      last = due;
      h.timer.fireNext();
      await h.loop.whenIdle();
    }
    expect(gaps).toEqual([60_000, 120_000, 240_000, 300_000, 300_000, 300_000]);
    expect(h.loop.getStatus()).toMatchObject({
      running: false,
      tickCount: 7,
      idleTicks: 7,
      lastStopReason: 'idle',
    });
    expect(stopped).toEqual(['idle']);
    expect(h.timer.pendingCount).toBe(0);
  });

  it('work resets the back-off to the base interval and the idle count to zero', async () => {
    const decisions: Decision[] = [{ type: 'idle' }, { type: 'idle' }, runTask('T1'), { type: 'idle' }];
    const h = makeLoop({ policy: scriptedPolicy(decisions), maxIdleTicks: null });
    h.loop.start();
    await h.loop.whenIdle();
    expect(h.loop.getStatus()).toMatchObject({ idleTicks: 1, currentInterval: 60_000 });
    h.timer.fireNext();
    await h.loop.whenIdle();
    expect(h.loop.getStatus()).toMatchObject({ idleTicks: 2, currentInterval: 120_000 });
    h.timer.fireNext();
    await h.loop.whenIdle();
    expect(h.loop.getStatus()).toMatchObject({ idleTicks: 0, currentInterval: 30_000 });
    await h.loop.stop();
  });

  it('honours idleBackoffFactor and maxIdleInterval', async () => {
    const h = makeLoop({
      policy: idlePolicy(),
      idleBackoffFactor: 3,
      interval: 10_000,
      maxIdleInterval: 50_000,
      maxIdleTicks: null,
    });
    h.loop.start();
    await h.loop.whenIdle();
    const intervals: number[] = [h.loop.getStatus().currentInterval];
    for (let i = 0; i < 3; i++) {
      h.timer.fireNext();
      await h.loop.whenIdle();
      intervals.push(h.loop.getStatus().currentInterval);
    }
    expect(intervals).toEqual([30_000, 50_000, 50_000, 50_000]);
    await h.loop.stop();
  });

  it.each([
    [1_000, 5_000],
    [5_000, 5_000],
    [45_000, 45_000],
    [600_000, 300_000],
  ])('clamps interval %d to 5 s – 5 min', async (interval, expected) => {
    const h = makeLoop({ policy: { getSystemState: () => 0, decide: () => runTask('T1') }, interval });
    h.loop.start();
    await h.loop.whenIdle();
    expect(h.loop.getStatus().currentInterval).toBe(expected);
    expect(h.timer.nextDueAt()).toBe(T0 + expected);
    if (expected !== interval) expect(h.log.messages()).toContain('Tick intervals clamped to 5 s – 5 min');
    await h.loop.stop();
  });

  it('clamps maxIdleInterval too, and never below interval', async () => {
    const h = makeLoop({
      policy: idlePolicy(),
      interval: 60_000,
      maxIdleInterval: 1_000,
      maxIdleTicks: null,
    });
    h.loop.start();
    await h.loop.whenIdle();
    expect(h.loop.getStatus().currentInterval).toBe(60_000);
    await h.loop.stop();
  });

  it('can be restarted after stop() and after stopping itself', async () => {
    const h = makeLoop({ policy: idlePolicy(), maxIdleTicks: 1 });
    const events: string[] = [];
    h.loop.on('started', () => events.push('started'));
    h.loop.on('stopped', ({ reason }) => events.push(`stopped:${reason}`));
    h.loop.start();
    await h.loop.whenIdle();
    h.loop.start();
    await h.loop.whenIdle();
    await h.loop.stop(); // already stopped itself: no second event
    expect(events).toEqual(['started', 'stopped:idle', 'started', 'stopped:idle']);
  });
});
