import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DetectionOptions } from '../src/attempts/loopDetection.js';
import { judgeAttempts } from '../src/attempts/loopDetection.js';
import { planRecovery } from '../src/attempts/recoveryPlan.js';
import {
  type Attempt,
  InMemoryStorage,
  LoopDetector,
  ManualClock,
  TASK_STATUSES,
  type TaskStatus,
} from '../src/index.js';

const T0 = 1_760_825_000_000;
const OPTIONS: DetectionOptions = {
  maxAttempts: 3,
  maxAttemptsBeforeForceNext: 5,
  enableAutoUnblock: true,
  attemptWindow: 1000,
  maxEvidence: 50,
};

function attempt(
  timestamp: number,
  status: TaskStatus,
  blockers: string[] = [],
  work: string[] = [],
): Attempt {
  return { taskId: 'T1', timestamp, status, blockers, completedWork: work, sessionId: 's' };
}

describe('judgeAttempts (pure)', () => {
  it('judges the seed loops from data alone', () => {
    const done = [1, 2, 3].map((i) => attempt(T0 + i, 'done', [], ['x']));
    expect(
      judgeAttempts({ taskId: 'T1', attempts: done, options: OPTIONS, grantActive: false, now: T0 + 3 }),
    ).toMatchObject({
      isLooping: true,
      loopType: 'completed_task_revisit',
      recommendation: 'force_next',
      attemptCount: 3,
    });
    const blocked = [1, 2, 3].map((i) => attempt(T0 + i, 'blocked', ['no token']));
    const spin = { taskId: 'T1', attempts: blocked, options: OPTIONS, now: T0 + 3 };
    expect(judgeAttempts({ ...spin, grantActive: false })).toMatchObject({
      loopType: 'blocked_task_spin',
      recommendation: 'unblock_authority',
      blockers: ['no token'],
    });
    expect(judgeAttempts({ ...spin, grantActive: true })).toMatchObject({
      recommendation: 'escalate',
      reason: 'Loop persists after unblock authority granted.',
    });
  });

  it('ignores attempts before the window', () => {
    const attempts = [1, 2, 3].map((i) => attempt(T0 + i * 600, 'done'));
    const result = judgeAttempts({
      taskId: 'T1',
      attempts,
      options: OPTIONS,
      grantActive: false,
      now: T0 + 1800,
    });
    expect(result).toMatchObject({ isLooping: false, attemptCount: 2 });
  });

  it('property: agrees with LoopDetector.detectLoop over the same attempts', () => {
    const step = fc.record({
      status: fc.constantFrom<TaskStatus>(...TASK_STATUSES),
      blockers: fc.array(fc.constantFrom('x', 'y'), { maxLength: 2 }),
      work: fc.array(fc.constantFrom('p', 'q'), { maxLength: 2 }),
      advance: fc.constantFrom(0, 10, 400),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        const clock = new ManualClock(T0);
        const storage = new InMemoryStorage({ clock });
        const detector = new LoopDetector(storage, { ...OPTIONS, clock });
        for (const s of steps) {
          clock.advance(s.advance);
          detector.recordAttempt('T1', s.status, s.blockers, s.work);
        }
        const pure = judgeAttempts({
          taskId: 'T1',
          attempts: storage.attempts.listSince('T1', 0),
          options: OPTIONS,
          grantActive: false,
          now: clock.now(),
        });
        expect(detector.detectLoop('T1')).toEqual(pure);
      }),
      { numRuns: 300 },
    );
  });
});

describe('planRecovery (pure)', () => {
  const judge = (attempts: Attempt[], grantActive = false) =>
    judgeAttempts({ taskId: 'T1', attempts, options: OPTIONS, grantActive, now: T0 + 10 });
  const task = (status: TaskStatus) => ({
    id: 'T1',
    title: '',
    status,
    blockedReason: null,
    metadata: {},
    createdAt: T0,
    updatedAt: T0,
  });

  it('is null for a result that is not a loop', () => {
    expect(planRecovery(judge([attempt(T0, 'done')]), OPTIONS, undefined)).toBeNull();
  });

  it('force_next: moves a known task to done, one constraint entry on loop_recovery, clears the attempts', () => {
    const result = judge([1, 2, 3].map((i) => attempt(T0 + i, 'done')));
    const plan = planRecovery(result, OPTIONS, task('in_progress'));
    expect(plan).toMatchObject({
      taskId: 'T1',
      action: 'force_next',
      transitions: [
        { taskId: 'T1', status: 'done', reason: 'Loop recovery (completed_task_revisit): force next task' },
      ],
      entries: [{ entryType: 'constraint', topic: 'loop_recovery', relatedTasks: ['T1'] }],
      clearAttempts: ['T1'],
    });
    expect(plan?.entries[0]?.metadata).toMatchObject({ taskKnown: true, evidence: result.evidence });
    expect(planRecovery(result, OPTIONS, task('done'))?.transitions).toEqual([]);
    expect(planRecovery(result, OPTIONS, undefined)?.transitions).toEqual([]);
  });

  it('unblock_authority: no transition, a scoped grant; escalate: the task moves to blocked with the reason', () => {
    const blocked = [1, 2, 3].map((i) => attempt(T0 + i, 'blocked', ['no token']));
    const grant = planRecovery(judge(blocked), OPTIONS, task('blocked'));
    expect(grant).toMatchObject({ action: 'unblock_authority', transitions: [] });
    expect(grant?.entries[0]?.metadata).toMatchObject({ scope: { taskId: 'T1', blockers: ['no token'] } });
    const escalation = planRecovery(judge(blocked, true), OPTIONS, task('in_progress'));
    expect(escalation).toMatchObject({
      action: 'escalate',
      transitions: [
        { status: 'blocked', reason: 'Loop escalation: Loop persists after unblock authority granted.' },
      ],
      entries: [{ topic: 'loop_escalation', entryType: 'decision' }],
    });
  });
});

describe('LoopDetector.recoverIfLooping', () => {
  it('judges against storage and writes the recovery in one step; events fire after the commit', () => {
    const clock = new ManualClock(T0);
    const storage = new InMemoryStorage({ clock });
    const detector = new LoopDetector(storage, { clock });
    storage.stateMachine.upsertTask({ id: 'T1' });
    expect(detector.recoverIfLooping('T1')).toEqual({
      applied: false,
      taskId: 'T1',
      reason: 'The loop no longer holds in storage (already recovered?).',
    });
    const seen: string[] = [];
    detector.on('loopDetected', (r) => seen.push(`loopDetected ${r.loopType}`));
    detector.on('recoveryApplied', (o) => {
      // the commit happened: the task's attempts are gone and a new transaction can start
      seen.push(`recoveryApplied ${o.action} attempts=${storage.attempts.listSince('T1', 0).length}`);
      storage.transaction(() => undefined);
    });
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'done', [], ['same']);
    const outcome = detector.recoverIfLooping('T1');
    expect(outcome).toMatchObject({ applied: true, action: 'force_next', task: { status: 'done' } });
    expect(seen).toEqual(['loopDetected completed_task_revisit', 'recoveryApplied force_next attempts=0']);
    expect(detector.recoverIfLooping('T1').applied).toBe(false);
  });

  it('rejects a bad task id before reading anything', () => {
    const detector = new LoopDetector(new InMemoryStorage());
    expect(() => detector.recoverIfLooping('')).toThrow(/taskId/);
  });

  it('a Storage and an attemptStore option together are a configuration error', () => {
    const storage = new InMemoryStorage();
    expect(() => new LoopDetector(storage, { attemptStore: storage.attempts })).toThrow(/"attemptStore"/);
  });
});

describe('LoopDetector.getStatus paging (memory)', () => {
  it('returns a page with the total and a cursor; the pages together are the unpaged status', () => {
    const clock = new ManualClock(T0);
    const detector = new LoopDetector(new InMemoryStorage({ clock }), { clock });
    for (const id of ['c', 'a', 'e', 'b', 'd']) detector.recordAttempt(id, 'in_progress', [], []);
    const first = detector.getStatus({ limit: 2 });
    expect(first).toEqual({
      tasks: { a: { attemptCount: 1, lastAttempt: T0 }, b: { attemptCount: 1, lastAttempt: T0 } },
      total: 5,
      nextCursor: 'b',
    });
    const second = detector.getStatus({ limit: 2, cursor: 'b' });
    const third = detector.getStatus({ limit: 2, cursor: second.nextCursor ?? '' });
    expect(Object.keys(second.tasks)).toEqual(['c', 'd']);
    expect(third).toMatchObject({ tasks: { e: {} }, nextCursor: null });
    expect({ ...first.tasks, ...second.tasks, ...third.tasks }).toEqual(detector.getStatus());
  });

  it('rejects a bad page query naming the field', () => {
    const detector = new LoopDetector(new InMemoryStorage());
    expect(() => detector.getStatus({ limit: 0 })).toThrow(/"limit"/);
    expect(() => detector.getStatus({ limit: 10, cursor: '' })).toThrow(/"cursor"/);
    expect(() => detector.getStatus({ limit: 10, offset: 5 } as never)).toThrow(/offset/);
  });
});
