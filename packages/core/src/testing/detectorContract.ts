import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoopDetector } from '../attempts/LoopDetector.js';
import { SharedLoopDetector, type SharedLoopDetectorOptions } from '../attempts/SharedLoopDetector.js';
import { ManualClock } from '../kernel/clock.js';
import { StorageError } from '../kernel/errors.js';
import { RECOVERY_TOPICS } from '../model/contextEntry.js';
import { attempt, type ContractSubject, T0 } from './contractSubject.js';

/** The synchronous runner behind the asynchronous runner's interface: every answer a promise, every throw a rejection. */
function promised(detector: LoopDetector): SharedLoopDetector {
  return new Proxy(detector, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          return Promise.resolve((value as (...a: unknown[]) => unknown).apply(target, args));
        } catch (error) {
          return Promise.reject(error);
        }
      };
    },
  }) as unknown as SharedLoopDetector;
}

/**
 * The contract of both attempt-level runners end to end on a storage: the seed's tests and the
 * shared-storage guarantees, run with `SharedLoopDetector` and, when the subject has synchronous
 * ports (`syncStorage`), with `LoopDetector` (reading storage on every call, `sharedStorage: true`).
 * @param create - opens a fresh adapter under test (empty storage, manual clock at {@link T0}) for each test.
 * @param syncSkip - why `LoopDetector` cannot run on this adapter (it has only asynchronous ports): the
 *   contract then checks that it has none; absent: `LoopDetector` runs the contract too.
 */
export function detectorContract(create: () => Promise<ContractSubject>, syncSkip?: string): void {
  describe('SharedLoopDetector end to end', () => {
    runnerContract(create, (a, options) => new SharedLoopDetector(a.storage, { clock: a.clock, ...options }));
    sharedRecordContract(create);
  });
  if (syncSkip !== undefined) {
    // not a skipped suite: the reason is checked, so that an adapter that gains synchronous ports
    // is told to run the contract on them too
    describe(`LoopDetector end to end: not on this adapter (${syncSkip})`, () => {
      it('the adapter has no synchronous ports', async () => {
        const a = await create();
        try {
          expect(a.syncStorage).toBeUndefined();
        } finally {
          await a.close();
        }
      });
    });
    return;
  }
  describe('LoopDetector end to end', () => {
    runnerContract(create, (a, options) => {
      if (a.syncStorage === undefined) throw new Error('this adapter has no synchronous ports (syncStorage)');
      return promised(new LoopDetector(a.syncStorage, { clock: a.clock, sharedStorage: true, ...options }));
    });
  });
}

/** The runner under test on a subject, behind the asynchronous interface so that one case serves both. */
type RunnerOn = (a: ContractSubject, options?: SharedLoopDetectorOptions) => SharedLoopDetector;

function runnerContract(create: () => Promise<ContractSubject>, runnerOn: RunnerOn): void {
  let a: ContractSubject;
  beforeEach(async () => {
    a = await create();
  });
  afterEach(async () => {
    await a.close();
  });
  const detectorOn = (options: SharedLoopDetectorOptions = {}) => runnerOn(a, options);

  it('seed Test 1: completed task revisit → force_next', async () => {
    const loopDetector = detectorOn();
    await a.stateMachine.upsertTask({ id: 'T3.4.2', title: 'dashboard' });
    for (let i = 0; i < 4; i++) {
      a.clock.advance(1000);
      await loopDetector.recordAttempt('T3.4.2', 'done', [], ['Implemented dashboard.tsx'], `session_${i}`);
    }
    const result = await loopDetector.detectLoop('T3.4.2');
    expect(result).toMatchObject({
      isLooping: true,
      loopType: 'completed_task_revisit',
      recommendation: 'force_next',
      attemptCount: 4,
    });
    const outcome = await loopDetector.applyRecovery(result);
    expect(outcome.applied).toBe(true);
    if (!outcome.applied) return;
    expect(outcome.entry.topic).toBe('loop_recovery');
    expect(outcome.entry.content).toContain('DO NOT revisit this task');
    expect(outcome.task?.status).toBe('done');
    expect(await a.attempts.listSince('T3.4.2', 0)).toEqual([]);
    expect((await loopDetector.detectLoop('T3.4.2')).isLooping).toBe(false);
  });

  it('seed Test 2: blocked task spin → unblock_authority, then escalate when it persists', async () => {
    const loopDetector = detectorOn();
    await a.stateMachine.upsertTask({ id: 'T3.4.3' });
    const blockers = ['critic:design_system unavailable'];
    for (let i = 0; i < 3; i++)
      await loopDetector.recordAttempt('T3.4.3', 'blocked', blockers, [], `session_${i}`);
    const result = await loopDetector.detectLoop('T3.4.3');
    expect(result).toMatchObject({
      isLooping: true,
      loopType: 'blocked_task_spin',
      recommendation: 'unblock_authority',
      blockers,
    });
    const granted = await loopDetector.applyRecovery(result);
    expect(granted.applied && granted.entry.topic).toBe('unblock_authority');
    expect(granted.applied && granted.entry.metadata.scope).toEqual({ taskId: 'T3.4.3', blockers });

    a.clock.advance(60_000);
    for (let i = 3; i < 6; i++)
      await loopDetector.recordAttempt('T3.4.3', 'blocked', blockers, [], `session_${i}`);
    const again = await loopDetector.detectLoop('T3.4.3');
    expect(again.recommendation).toBe('escalate');
    const escalated = await loopDetector.applyRecovery(again);
    expect(escalated.applied && escalated.entry.topic).toBe('loop_escalation');
    expect(await a.stateMachine.getTask('T3.4.3')).toMatchObject({ status: 'blocked' });
    expect(
      (await a.stateMachine.listContextEntries({ topics: RECOVERY_TOPICS })).map((e) => [
        e.topic,
        e.timestamp - T0,
      ]),
    ).toEqual([
      ['loop_escalation', 60_000],
      ['unblock_authority', 0],
    ]);
  });

  it('seed Test 3: no progress repeat → force_next after 5 attempts', async () => {
    const loopDetector = detectorOn();
    const work = ['Read file A', 'Parse config'];
    for (let i = 0; i < 5; i++)
      await loopDetector.recordAttempt('T7.1.2', 'in_progress', [], work, `session_${i}`);
    const outcome = await loopDetector.recoverIfLooping('T7.1.2');
    expect(outcome).toMatchObject({ applied: true, action: 'force_next', loopType: 'no_progress_repeat' });
    expect(outcome.applied && outcome.task).toBeNull();
    const [entry] = await a.stateMachine.listContextEntries({ taskId: 'T7.1.2' });
    expect(entry?.metadata).toMatchObject({
      loopType: 'no_progress_repeat',
      attemptCount: 5,
      taskKnown: false,
    });
    expect(entry?.metadata.evidence).toHaveLength(5);
  });

  it('attempts recorded by any detector count for all; a recovery is applied once', async () => {
    const workers = [detectorOn(), detectorOn(), detectorOn()];
    await a.stateMachine.upsertTask({ id: 'T7' });
    for (const [i, worker] of workers.entries()) await worker.recordAttempt('T7', 'done', [], [], `w${i}`);
    const results = await Promise.all(workers.map((w) => w.detectLoop('T7')));
    expect(results.every((r) => r.isLooping && r.attemptCount === 3)).toBe(true);
    const outcomes = await Promise.all(workers.map((w, i) => w.applyRecovery(results[i] as never)));
    expect(outcomes.filter((o) => o.applied)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.applied).map((o) => !o.applied && o.reason)).toEqual([
      'The loop no longer holds in storage (already recovered?).',
      'The loop no longer holds in storage (already recovered?).',
    ]);
    expect(await a.stateMachine.listContextEntries({ topics: RECOVERY_TOPICS })).toHaveLength(1);
  });

  it('a cross-task cycle recorded by two detectors is escalated once, with every task blocked', async () => {
    const workers = [detectorOn(), detectorOn()];
    const cycle = ['C1', 'C2', 'C3'];
    for (const id of cycle) await a.stateMachine.upsertTask({ id });
    let turn = 0;
    for (let round = 0; round < 3; round++) {
      for (const id of cycle) {
        a.clock.advance(1000);
        const worker = workers[turn++ % 2] as SharedLoopDetector;
        await worker.recordAttempt(id, 'in_progress', ['waiting for review'], [], `w${turn % 2}`);
      }
    }
    const results = await Promise.all(workers.map((w) => w.detectLoop('C2')));
    for (const result of results) {
      expect(result).toMatchObject({ isLooping: true, loopType: 'cross_task_cycle', cycleTasks: cycle });
    }
    const outcomes = await Promise.all(workers.map((w, i) => w.applyRecovery(results[i] as never)));
    expect(outcomes.filter((o) => o.applied)).toHaveLength(1);
    const entries = await a.stateMachine.listContextEntries({ topics: RECOVERY_TOPICS });
    expect(entries.map((e) => [e.topic, e.relatedTasks])).toEqual([['loop_escalation', cycle]]);
    for (const id of cycle) {
      expect((await a.stateMachine.getTask(id))?.status).toBe('blocked');
      expect(await a.attempts.listSince(id, 0)).toEqual([]);
    }
  });

  it('a failed recovery leaves the task, the entries and the attempts as they were', async () => {
    const detector = detectorOn();
    await a.stateMachine.upsertTask({ id: 'T1' });
    for (let i = 0; i < 3; i++) await detector.recordAttempt('T1', 'done', [], ['same']);
    const before = await a.attempts.listSince('T1', 0);
    const failing = new SharedLoopDetector(
      {
        ...a.storage,
        transaction: (fn, options) =>
          a.storage.transaction(
            (tx) =>
              fn({
                attempts: tx.attempts,
                stateMachine: {
                  ...tx.stateMachine,
                  getTask: (id) => tx.stateMachine.getTask(id),
                  transition: (id, s, r) => tx.stateMachine.transition(id, s, r),
                  listContextEntries: (q) => tx.stateMachine.listContextEntries(q),
                  addContextEntry: async () => {
                    throw new StorageError('storage_error', 'disk full');
                  },
                },
              }),
            options,
          ),
      },
      { clock: a.clock },
    );
    await expect(failing.recoverIfLooping('T1')).rejects.toThrow('disk full');
    expect((await a.stateMachine.getTask('T1'))?.status).toBe('pending');
    expect(await a.attempts.listSince('T1', 0)).toEqual(before);
    expect(await a.stateMachine.listContextEntries()).toEqual([]);
    expect(await detector.recoverIfLooping('T1')).toMatchObject({ applied: true, action: 'force_next' });
  });

  it('recordAttemptWithTransition stores the attempt and the transition together', async () => {
    const detector = detectorOn();
    await a.stateMachine.upsertTask({ id: 'T1' });
    const { task } = await detector.recordAttemptWithTransition({
      taskId: 'T1',
      status: 'blocked',
      blockers: ['no token'],
      completedWork: [],
      reason: 'no token',
    });
    expect(task).toMatchObject({ status: 'blocked', blockedReason: 'no token' });
    expect(await detector.getStatus()).toEqual({ T1: { attemptCount: 1, lastAttempt: T0 } });
    await expect(
      detector.recordAttemptWithTransition({
        taskId: 'T1',
        status: 'done',
        blockers: [],
        completedWork: [],
        reason: '',
      }),
    ).rejects.toThrow(/input.reason/);
    await expect(detector.recordAttempt('T1', 'finished', [], [])).rejects.toThrow(/status/);
    expect(await a.attempts.listSince('T1', 0)).toHaveLength(1);
  });

  it('attempts outside the window do not count; prune and clearTask delete stored attempts', async () => {
    const detector = detectorOn({ attemptWindow: 60_000 });
    for (let i = 0; i < 3; i++) await detector.recordAttempt('T1', 'done', [], [], `s${i}`);
    await detector.recordAttempt('T2', 'done', [], [], 's');
    a.clock.advance(60_001);
    expect(await detector.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 0 });
    expect(await detector.getStatus()).toEqual({});
    expect(await detector.prune()).toBe(4);
    await detector.recordAttempt('T3', 'done', [], [], 's');
    expect(await detector.clearTask('T3')).toBe(1);
  });
}

/**
 * How `SharedLoopDetector.recordAttempt` stamps and serialises, whichever way the storage records
 * (its own `appendInOrder`, or a locked transaction).
 */
function sharedRecordContract(create: () => Promise<ContractSubject>): void {
  let a: ContractSubject;
  beforeEach(async () => {
    a = await create();
  });
  afterEach(async () => {
    await a.close();
  });

  it("an attempt is never stamped before the task's newest stored one (a worker whose clock is behind)", async () => {
    const ahead = new SharedLoopDetector(a.storage, { clock: a.clock });
    const behind = new SharedLoopDetector(a.storage, { clock: new ManualClock(T0 - 10_000) });
    await ahead.recordAttempt('T1', 'in_progress', [], ['first']);
    const second = await behind.recordAttempt('T1', 'in_progress', [], ['second'], 'w2');
    expect(second).toMatchObject({ taskId: 'T1', timestamp: T0, completedWork: ['second'], sessionId: 'w2' });
    expect(Object.isFrozen(second)).toBe(true);
    expect((await behind.recordAttempt('T2', 'done', [], [])).timestamp).toBe(T0 - 10_000);
    const stored = await a.attempts.listSince('T1', 0);
    expect(stored.map((x) => [x.timestamp, x.completedWork[0]])).toEqual([
      [T0, 'first'],
      [T0, 'second'],
    ]);
  });

  it('recording waits for a transaction locked on the task and is stamped after what it committed', async () => {
    const detector = new SharedLoopDetector(a.storage, { clock: a.clock });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const held = a.storage.transaction(
      async (tx) => {
        await tx.attempts.append(attempt('T1', T0 + 5_000));
        entered();
        await gate;
      },
      { lockKey: 'T1' },
    );
    await inside;
    const order: string[] = [];
    const recorded = detector.recordAttempt('T1', 'in_progress', [], []).then((x) => {
      order.push('recorded');
      return x;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    order.push('committed');
    release();
    await held;
    expect((await recorded).timestamp).toBe(T0 + 5_000);
    expect(order).toEqual(['committed', 'recorded']);
  });

  it('rejects a bad attempt naming the argument, writing nothing', async () => {
    const detector = new SharedLoopDetector(a.storage, { clock: a.clock });
    await expect(detector.recordAttempt('T1', 'finished', [], [])).rejects.toThrow(/status/);
    await expect(detector.recordAttempt('', 'done', [], [])).rejects.toThrow(/taskId/);
    await expect(detector.recordAttempt('T1', 'done', [1] as never, [])).rejects.toThrow(/blockers/);
    expect(await a.attempts.summarize(0)).toEqual(new Map());
  });
}
