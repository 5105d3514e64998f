import { describe, expect, it } from 'vitest';
import { asyncInMemoryStorage, ManualClock, SharedLoopDetector } from '../src/index.js';

/** What the asynchronous runner gained by sharing the synchronous runner's workflows. */
const T0 = 1_760_825_000_000;

function worker(storage = asyncInMemoryStorage({ clock: new ManualClock(T0) }), clock = new ManualClock(T0)) {
  return { storage, clock, detector: new SharedLoopDetector(storage, { clock, maxAttempts: 3 }) };
}

describe('SharedLoopDetector, the gaps closed', () => {
  it('detects a cross-task cycle from storage: attempts recorded by two workers count together', async () => {
    const { storage, clock, detector: one } = worker();
    const two = new SharedLoopDetector(storage, { clock, maxAttempts: 3 });
    for (const id of ['T1', 'T2', 'T3']) await storage.stateMachine.upsertTask({ id, status: 'in_progress' });
    for (let round = 0; round < 3; round++) {
      for (const [i, id] of ['T1', 'T2', 'T3'].entries()) {
        clock.advance(1_000);
        await (i % 2 === 0 ? one : two).recordAttempt(id, 'in_progress', ['flaky CI'], [], `s${round}`);
      }
    }
    const result = await two.detectLoop('T2');
    expect(result).toMatchObject({
      isLooping: true,
      loopType: 'cross_task_cycle',
      recommendation: 'escalate',
    });
    expect(result.cycleTasks).toEqual(['T1', 'T2', 'T3']);

    const [first, second] = await Promise.all([one.applyRecovery(result), two.applyRecovery(result)]);
    expect([first.applied, second.applied].sort()).toEqual([false, true]);
    for (const id of ['T1', 'T2', 'T3'])
      expect((await storage.stateMachine.getTask(id))?.status).toBe('blocked');
    expect(await one.listRecoveries()).toHaveLength(1);
    expect((await one.detectLoop('T1')).isLooping).toBe(false);
  });

  it('resolveEscalation releases an escalated task, and listRecoveries reads the recoveries back', async () => {
    const storage = asyncInMemoryStorage({ clock: new ManualClock(T0) });
    const clock = new ManualClock(T0);
    const detector = new SharedLoopDetector(storage, { clock, maxAttempts: 3, enableAutoUnblock: false });
    await storage.stateMachine.upsertTask({ id: 'T6', status: 'in_progress' });
    for (let i = 0; i < 3; i++) {
      clock.advance(1_000);
      await detector.recordAttempt('T6', 'blocked', ['API token expired'], [], `s${i}`);
    }
    const outcome = await detector.recoverIfLooping('T6');
    expect(outcome).toMatchObject({ applied: true, action: 'escalate' });
    expect(await detector.openEscalation('T6')).not.toBeNull();
    expect((await detector.listRecoveries({ taskId: 'T6' })).map((r) => [r.action, r.loopType])).toEqual([
      ['escalate', 'blocked_task_spin'],
    ]);

    const released: string[] = [];
    detector.on('escalationResolved', (r) => released.push(r.taskId));
    const resolved = await detector.resolveEscalation('T6', { note: 'Rotated the API token', by: 'alice' });
    expect(resolved.task?.status).toBe('pending');
    expect(resolved.entry.topic).toBe('loop_resolution');
    expect(released).toEqual(['T6']);
    expect(await detector.openEscalation('T6')).toBeNull();
    await expect(detector.resolveEscalation('T6', { note: 'again' })).rejects.toThrow(/no open escalation/);
    await expect(detector.resolveEscalation('T6', { note: '' })).rejects.toThrow(/input\.note/);
  });

  it('stamps an attempt after the task’s newest stored one when a worker’s clock is behind', async () => {
    const storage = asyncInMemoryStorage({ clock: new ManualClock(T0) });
    const ahead = new SharedLoopDetector(storage, { clock: new ManualClock(T0 + 5_000) });
    const behind = new SharedLoopDetector(storage, { clock: new ManualClock(T0) });
    const first = await ahead.recordAttempt('T1', 'in_progress', [], ['a']);
    const second = await behind.recordAttempt('T1', 'in_progress', [], ['b']);
    expect(second.timestamp).toBeGreaterThanOrEqual(first.timestamp);
    expect((await storage.attempts.listSince('T1', 0)).map((a) => a.completedWork)).toEqual([['a'], ['b']]);
  });

  it('pages getStatus in task-id order', async () => {
    const { detector } = worker();
    for (const id of ['T3', 'T1', 'T2']) await detector.recordAttempt(id, 'in_progress', [], []);
    const page = await detector.getStatus({ limit: 2 });
    expect(Object.keys(page.tasks)).toEqual(['T1', 'T2']);
    expect(page.total).toBe(3);
    const next = await detector.getStatus({ limit: 2, cursor: page.nextCursor as string });
    expect(Object.keys(next.tasks)).toEqual(['T3']);
    expect(next.nextCursor).toBeNull();
    await expect(detector.getStatus({ limit: 0 })).rejects.toThrow(/page/);
  });

  it('uses one budget default with LoopDetector', () => {
    expect(worker().detector.options.maxAttemptsPerTask).toBe(20);
  });
});
