import { describe, expect, it } from 'vitest';
import {
  AGGRESSIVE_PRESET,
  CONSERVATIVE_PRESET,
  RECOMMENDED_PRESET,
} from '../src/attempts/loopDetectorOptions.js';
import {
  ConfigurationError,
  InMemoryStateMachine,
  InMemoryStorage,
  InvalidInputError,
  LOOP_DETECTOR_PRESETS,
  LoopDetector,
  LoopGuardError,
  type RecoveryOutcome,
  SIZE_LIMITS,
} from '../src/index.js';
import { isSealedAttempt } from '../src/model/sealedAttempts.js';
import { makeDetector } from './helpers.js';

const HOUR = 3_600_000;

describe('LoopDetector window', () => {
  it('prunes attempts older than the window so they never count', () => {
    const { detector, clock } = makeDetector();
    detector.recordAttempt('T1', 'done', [], [], 's1');
    detector.recordAttempt('T1', 'done', [], [], 's2');
    clock.advance(HOUR + 1);
    detector.recordAttempt('T1', 'done', [], [], 's3');
    expect(detector.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 1 });
    expect(detector.getStatus()).toEqual({ T1: { attemptCount: 1, lastAttempt: clock.now() } });
  });

  it('an attempt exactly one window old still counts', () => {
    const { detector, clock } = makeDetector();
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'done', [], [], `s${i}`);
    clock.advance(HOUR);
    expect(detector.detectLoop('T1').isLooping).toBe(true);
    clock.advance(1);
    expect(detector.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 0, evidence: [] });
  });

  it('attemptWindow changes which attempts count', () => {
    const { detector, clock } = makeDetector({ attemptWindow: 1000 });
    detector.recordAttempt('T1', 'done', [], [], 's1');
    detector.recordAttempt('T1', 'done', [], [], 's2');
    clock.advance(1001);
    detector.recordAttempt('T1', 'done', [], [], 's3');
    expect(detector.detectLoop('T1').isLooping).toBe(false);
  });

  it('prune() deletes expired attempts from the store in bounded batches', () => {
    const { detector, clock, attemptStore } = makeDetector({ pruneBatchSize: 2, pruneEvery: 1_000_000 });
    for (let i = 0; i < 5; i++) detector.recordAttempt(`T${i}`, 'pending', [], [], 's');
    clock.advance(HOUR + 1);
    expect(detector.prune()).toBe(2);
    expect(detector.prune()).toBe(2);
    expect(detector.prune()).toBe(1);
    expect(detector.prune()).toBe(0);
    expect(attemptStore.summarize(0).size).toBe(0);
  });

  it('recordAttempt prunes storage every pruneEvery records', () => {
    const { detector, clock, attemptStore } = makeDetector({ pruneEvery: 3, pruneBatchSize: 100 });
    detector.recordAttempt('old', 'pending', [], [], 's');
    clock.advance(HOUR + 1);
    detector.recordAttempt('T1', 'pending', [], [], 's');
    expect(attemptStore.summarize(0).has('old')).toBe(true);
    detector.recordAttempt('T1', 'pending', [], [], 's');
    expect(attemptStore.summarize(0).has('old')).toBe(false);
  });
});

describe('LoopDetector rules', () => {
  it('no loop when completed work differs between attempts', () => {
    const { detector } = makeDetector();
    for (let i = 0; i < 6; i++) detector.recordAttempt('T1', 'in_progress', [], [`step ${i}`], `s${i}`);
    expect(detector.detectLoop('T1')).toMatchObject({
      isLooping: false,
      loopType: null,
      recommendation: null,
      attemptCount: 6,
    });
  });

  it('no loop below maxAttempts, a loop at it', () => {
    const { detector } = makeDetector({ maxAttempts: 4, maxAttemptsBeforeForceNext: 4 });
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'blocked', ['x'], [], 's');
    expect(detector.detectLoop('T1').isLooping).toBe(false);
    detector.recordAttempt('T1', 'blocked', ['x'], [], 's');
    expect(detector.detectLoop('T1').isLooping).toBe(true);
  });

  it('different blockers break a blocked spin', () => {
    const { detector } = makeDetector();
    detector.recordAttempt('T1', 'blocked', ['a'], [], 's');
    detector.recordAttempt('T1', 'blocked', ['b'], ['w1'], 's');
    detector.recordAttempt('T1', 'blocked', ['a'], ['w2'], 's');
    expect(detector.detectLoop('T1').isLooping).toBe(false);
  });

  it('compares blockers and completed work regardless of order', () => {
    const { detector } = makeDetector();
    detector.recordAttempt('T1', 'blocked', ['a', 'b', 'c'], [], 's');
    detector.recordAttempt('T1', 'blocked', ['c', 'a', 'b'], [], 's');
    detector.recordAttempt('T1', 'blocked', ['b', 'c', 'a'], [], 's');
    expect(detector.detectLoop('T1').loopType).toBe('blocked_task_spin');
    detector.recordAttempt('T2', 'in_progress', [], ['x', 'y'], 's');
    detector.recordAttempt('T2', 'in_progress', [], ['y', 'x'], 's');
    detector.recordAttempt('T2', 'in_progress', [], ['x', 'y'], 's');
    detector.recordAttempt('T2', 'in_progress', [], ['y', 'x'], 's');
    detector.recordAttempt('T2', 'in_progress', [], ['x', 'y'], 's');
    expect(detector.detectLoop('T2').loopType).toBe('no_progress_repeat');
  });

  it('a different multiset is not the same work (duplicates count)', () => {
    const { detector } = makeDetector();
    detector.recordAttempt('T1', 'in_progress', [], ['x', 'x'], 's');
    detector.recordAttempt('T1', 'in_progress', [], ['x'], 's');
    detector.recordAttempt('T1', 'in_progress', [], ['x', 'x'], 's');
    expect(detector.detectLoop('T1').isLooping).toBe(false);
  });

  it("never changes the caller's arrays", () => {
    const { detector } = makeDetector();
    const blockers = ['z', 'a', 'm'];
    const work = ['3', '1', '2'];
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'blocked', blockers, work, 's');
    const result = detector.detectLoop('T1');
    expect(blockers).toEqual(['z', 'a', 'm']);
    expect(work).toEqual(['3', '1', '2']);
    result.blockers.push('mutated');
    blockers.push('later');
    expect(detector.detectLoop('T1').blockers).toEqual(['z', 'a', 'm']);
    expect(Object.isFrozen(result.evidence[0]?.blockers)).toBe(true);
  });

  it('no_progress_repeat is a loop from maxAttemptsBeforeForceNext attempts, and forces next', () => {
    const { detector } = makeDetector({ maxAttemptsBeforeForceNext: 4 });
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'in_progress', [], ['same'], 's');
    expect(detector.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 3 });
    detector.recordAttempt('T1', 'in_progress', [], ['same'], 's');
    expect(detector.detectLoop('T1')).toMatchObject({ recommendation: 'force_next', attemptCount: 4 });
  });

  it('a status change restarts the run', () => {
    const { detector } = makeDetector();
    detector.recordAttempt('T1', 'in_progress', [], ['same'], 's');
    detector.recordAttempt('T1', 'in_progress', [], ['same'], 's');
    detector.recordAttempt('T1', 'needs_review', [], ['same'], 's');
    expect(detector.detectLoop('T1').isLooping).toBe(false);
  });

  it('evidence holds the judged attempts, capped at maxEvidence', () => {
    const { detector } = makeDetector({ maxEvidence: 2 });
    for (let i = 0; i < 4; i++) detector.recordAttempt('T1', 'done', [], [`w${i}`], `s${i}`);
    const { evidence, attemptCount } = detector.detectLoop('T1');
    expect(attemptCount).toBe(4);
    expect(evidence.map((a) => a.sessionId)).toEqual(['s2', 's3']);
  });

  it('auto-unblock off: a blocked spin escalates', async () => {
    const { detector, stateMachine } = makeDetector({ enableAutoUnblock: false });
    stateMachine.upsertTask({ id: 'T1' });
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'blocked', ['missing auth token'], [], 's');
    const result = detector.detectLoop('T1');
    expect(result).toMatchObject({ loopType: 'blocked_task_spin', recommendation: 'escalate' });
    const outcome = await detector.applyRecovery(result);
    expect(outcome).toMatchObject({ applied: true, action: 'escalate' });
    expect(stateMachine.getTask('T1')?.status).toBe('blocked');
  });

  it('a loop that persists after unblock authority escalates', async () => {
    const { detector, stateMachine } = makeDetector();
    stateMachine.upsertTask({ id: 'T6.2.3', status: 'in_progress' });
    for (let i = 0; i < 3; i++)
      detector.recordAttempt('T6.2.3', 'blocked', ['critic:leakage unavailable'], [], 's');
    const granted = await detector.applyRecovery(detector.detectLoop('T6.2.3'));
    expect(granted).toMatchObject({ applied: true, action: 'unblock_authority' });
    for (let i = 0; i < 3; i++)
      detector.recordAttempt('T6.2.3', 'blocked', ['critic:leakage unavailable'], [], 's');
    const again = detector.detectLoop('T6.2.3');
    expect(again).toMatchObject({
      recommendation: 'escalate',
      reason: 'Loop persists after unblock authority granted.',
    });
    const escalated = await detector.applyRecovery(again);
    expect(escalated.applied && escalated.entry.content).toBe(
      'ESCALATION: Loop detected on task T6.2.3 after 3 attempts.\nHuman intervention required.\nReason: Loop persists after unblock authority granted.',
    );
    expect(stateMachine.getTask('T6.2.3')).toMatchObject({ status: 'blocked' });
  });

  it('no progress after unblock authority escalates with the seed reason', async () => {
    const { detector } = makeDetector();
    for (let i = 0; i < 3; i++) detector.recordAttempt('T6.2.3', 'blocked', ['b'], [], 's');
    await detector.applyRecovery(detector.detectLoop('T6.2.3'));
    for (let i = 0; i < 6; i++) detector.recordAttempt('T6.2.3', 'in_progress', [], ['same'], 's');
    const outcome = await detector.applyRecovery(detector.detectLoop('T6.2.3'));
    expect(outcome.applied && outcome.entry.content).toBe(
      'ESCALATION: Loop detected on task T6.2.3 after 6 attempts.\nHuman intervention required.\nReason: No progress despite unblock authority.',
    );
  });
});

describe('LoopDetector recoveries', () => {
  async function loopAndRecover(status: 'done' | 'blocked' | 'in_progress', count: number, options = {}) {
    const ctx = makeDetector(options);
    ctx.stateMachine.upsertTask({ id: 'T3.4.2', status: 'in_progress' });
    for (let i = 0; i < count; i++) {
      ctx.detector.recordAttempt(
        'T3.4.2',
        status,
        status === 'blocked' ? ['critic:leakage unavailable'] : [],
        ['Implemented dashboard.tsx'],
        `session_${i}`,
      );
    }
    const outcome = (await ctx.detector.applyRecovery(ctx.detector.detectLoop('T3.4.2'))) as Extract<
      RecoveryOutcome,
      { applied: true }
    >;
    return { ...ctx, outcome };
  }

  it('force_next marks the task done and writes the seed directive on loop_recovery', async () => {
    const { outcome, stateMachine } = await loopAndRecover('done', 4);
    expect(outcome.action).toBe('force_next');
    expect(outcome.entry).toMatchObject({
      topic: 'loop_recovery',
      relatedTasks: ['T3.4.2'],
      content:
        'LOOP DETECTED: Task T3.4.2 completed after 4 attempts.\nDO NOT revisit this task. SELECT NEXT TASK from roadmap using plan_next().',
    });
    expect(stateMachine.getTask('T3.4.2')?.status).toBe('done');
    const events = stateMachine.listTaskEvents('T3.4.2');
    expect(events.at(-1)).toMatchObject({ fromStatus: 'in_progress', toStatus: 'done' });
  });

  it('unblock_authority grants scoped authority with the seed permissions and evidence', async () => {
    const { outcome, stateMachine, clock } = await loopAndRecover('blocked', 3);
    expect(outcome.entry.topic).toBe('unblock_authority');
    expect(outcome.entry.content).toBe(
      [
        'UNBLOCK AUTHORITY GRANTED: Task T3.4.2 blocked by [critic:leakage unavailable] after 3 attempts.',
        '',
        'You have FULL AUTHORITY to:',
        '1. Remove or work around these blockers',
        '2. Make necessary architectural changes',
        '3. Skip unavailable dependencies temporarily',
        '4. Create stub implementations if needed',
        '5. Document blockers as technical debt for later',
        '',
        'COMPLETE the task by any means necessary, then mark it done and move on.',
      ].join('\n'),
    );
    expect(outcome.entry.metadata).toMatchObject({
      loopType: 'blocked_task_spin',
      scope: { taskId: 'T3.4.2', blockers: ['critic:leakage unavailable'] },
      thresholds: {
        maxAttempts: 3,
        attemptWindow: HOUR,
        enableAutoUnblock: true,
        maxAttemptsBeforeForceNext: 5,
      },
    });
    const evidence = outcome.entry.metadata.evidence as Array<Record<string, unknown>>;
    expect(evidence).toHaveLength(3);
    expect(evidence[0]).toEqual({
      taskId: 'T3.4.2',
      timestamp: clock.now(),
      status: 'blocked',
      blockers: ['critic:leakage unavailable'],
      completedWork: ['Implemented dashboard.tsx'],
      sessionId: 'session_0',
    });
    expect(stateMachine.getTask('T3.4.2')?.status).toBe('in_progress');
  });

  it('escalate marks the task blocked with the reason', async () => {
    const { outcome, stateMachine } = await loopAndRecover('blocked', 3, { enableAutoUnblock: false });
    expect(outcome).toMatchObject({ action: 'escalate', loopType: 'blocked_task_spin' });
    expect(outcome.entry.topic).toBe('loop_escalation');
    expect(stateMachine.getTask('T3.4.2')).toMatchObject({
      status: 'blocked',
      blockedReason: 'Loop escalation: Auto-unblock disabled; the same blockers were hit on every attempt.',
    });
  });

  it('after a recovery a new loop needs fresh attempts', async () => {
    const { detector, attemptStore } = await loopAndRecover('done', 3);
    expect(attemptStore.listSince('T3.4.2', 0)).toEqual([]);
    expect(detector.detectLoop('T3.4.2')).toMatchObject({ isLooping: false, attemptCount: 0 });
    detector.recordAttempt('T3.4.2', 'done', [], [], 's');
    detector.recordAttempt('T3.4.2', 'done', [], [], 's');
    expect(detector.detectLoop('T3.4.2').isLooping).toBe(false);
    detector.recordAttempt('T3.4.2', 'done', [], [], 's');
    expect(detector.detectLoop('T3.4.2').isLooping).toBe(true);
  });

  it('applying the same result twice writes one recovery', async () => {
    const { detector, stateMachine } = makeDetector();
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'done', [], [], 's');
    const result = detector.detectLoop('T1');
    expect((await detector.applyRecovery(result)).applied).toBe(true);
    expect(await detector.applyRecovery(result)).toMatchObject({ applied: false });
    expect(stateMachine.listContextEntries()).toHaveLength(1);
  });

  it('a result that is not a loop writes nothing', async () => {
    const { detector, stateMachine } = makeDetector();
    detector.recordAttempt('T1', 'done', [], [], 's');
    expect(await detector.applyRecovery(detector.detectLoop('T1'))).toMatchObject({ applied: false });
    expect(stateMachine.listContextEntries()).toEqual([]);
  });

  it('records a recovery for a task the state machine does not know, without a transition', async () => {
    const { outcome, stateMachine } = await (async () => {
      const ctx = makeDetector();
      for (let i = 0; i < 3; i++) ctx.detector.recordAttempt('ghost', 'done', [], [], 's');
      return { ...ctx, outcome: await ctx.detector.applyRecovery(ctx.detector.detectLoop('ghost')) };
    })();
    expect(outcome).toMatchObject({ applied: true, task: null });
    expect(stateMachine.listContextEntries({ taskId: 'ghost' })[0]?.metadata.taskKnown).toBe(false);
  });

  it('resumes from storage: a new detector on the same adapters sees the attempts and the grant', async () => {
    const ctx = makeDetector();
    for (let i = 0; i < 3; i++) ctx.detector.recordAttempt('T1', 'blocked', ['b'], [], 's');
    await ctx.detector.applyRecovery(ctx.detector.detectLoop('T1'));
    for (let i = 0; i < 3; i++) ctx.detector.recordAttempt('T1', 'blocked', ['b'], [], 's');
    const restarted = new LoopDetector(ctx.stateMachine, {
      clock: ctx.clock,
      attemptStore: ctx.attemptStore,
    });
    expect(restarted.detectLoop('T1')).toMatchObject({ isLooping: true, recommendation: 'escalate' });
  });

  it('sharedStorage: a detector sees attempts another detector stored after it first met the task', () => {
    const ctx = makeDetector();
    const other = new LoopDetector(ctx.stateMachine, { clock: ctx.clock, attemptStore: ctx.attemptStore });
    const shared = new LoopDetector(ctx.stateMachine, {
      clock: ctx.clock,
      attemptStore: ctx.attemptStore,
      sharedStorage: true,
    });
    const isolated = ctx.detector;
    for (const detector of [shared, isolated]) expect(detector.detectLoop('T1').attemptCount).toBe(0);
    // the isolated detector keeps the task in memory from its first record on
    isolated.recordAttempt('T1', 'blocked', ['b'], [], 'process-3');
    other.recordAttempt('T1', 'blocked', ['b'], [], 'process-2');
    other.recordAttempt('T1', 'blocked', ['b'], [], 'process-2');
    shared.recordAttempt('T1', 'blocked', ['b'], [], 'process-1');
    expect(shared.detectLoop('T1')).toMatchObject({ isLooping: true, attemptCount: 4 });
    expect(isolated.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 1 });
  });

  it('sharedStorage: a recovery applied by another detector is seen at once', async () => {
    const ctx = makeDetector();
    const options = { clock: ctx.clock, attemptStore: ctx.attemptStore, sharedStorage: true };
    const first = new LoopDetector(ctx.stateMachine, options);
    const second = new LoopDetector(ctx.stateMachine, options);
    for (let i = 0; i < 3; i++) first.recordAttempt('T1', 'blocked', ['b'], [], 's');
    expect(second.detectLoop('T1').recommendation).toBe('unblock_authority');
    await first.applyRecovery(first.detectLoop('T1'));
    expect(second.detectLoop('T1').isLooping).toBe(false);
    for (let i = 0; i < 3; i++) second.recordAttempt('T1', 'blocked', ['b'], [], 's');
    expect(second.detectLoop('T1')).toMatchObject({ recommendation: 'escalate' });
  });

  it('clearTask forgets a task', () => {
    const { detector } = makeDetector();
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'done', [], [], 's');
    expect(detector.clearTask('T1')).toBe(3);
    expect(detector.detectLoop('T1').isLooping).toBe(false);
  });
});

describe('LoopDetector events', () => {
  it('emits attemptRecorded, loopDetected and recoveryApplied with their payloads', async () => {
    const { detector } = makeDetector();
    const seen: Array<[string, unknown]> = [];
    detector.on('attemptRecorded', (a) => seen.push(['attemptRecorded', a.sessionId]));
    detector.on('loopDetected', (r) => seen.push(['loopDetected', r.loopType]));
    detector.on('recoveryApplied', (o) => seen.push(['recoveryApplied', o.action]));
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'done', [], [], `s${i}`);
    await detector.applyRecovery(detector.detectLoop('T1'));
    expect(seen).toEqual([
      ['attemptRecorded', 's0'],
      ['attemptRecorded', 's1'],
      ['attemptRecorded', 's2'],
      ['loopDetected', 'completed_task_revisit'],
      ['recoveryApplied', 'force_next'],
    ]);
  });

  it('a throwing listener is logged and does not break the detector or other listeners', () => {
    const { detector, lines } = makeDetector();
    let calls = 0;
    detector.on('attemptRecorded', () => {
      throw new Error('listener bug');
    });
    detector.on('attemptRecorded', () => calls++);
    expect(() => detector.recordAttempt('T1', 'done', [], [], 's')).not.toThrow();
    expect(calls).toBe(1);
    expect(lines.find((l) => l.level === 50)?.msg).toBe('Listener for attemptRecorded threw');
  });

  it('once listeners run once', () => {
    const { detector } = makeDetector();
    let calls = 0;
    detector.once('attemptRecorded', () => calls++);
    detector.recordAttempt('T1', 'done', [], [], 's');
    detector.recordAttempt('T1', 'done', [], [], 's');
    expect(calls).toBe(1);
  });
});

describe('LoopDetector input errors', () => {
  const cases: Array<[string, (d: LoopDetector) => unknown, RegExp]> = [
    [
      'empty task id',
      (d) => d.recordAttempt('', 'done', [], [], 's'),
      /^taskId must be a non-empty string, got an empty string$/,
    ],
    [
      'non-string task id',
      (d) => d.recordAttempt(42 as never, 'done', [], [], 's'),
      /^taskId must be a non-empty string, got number 42$/,
    ],
    [
      'unknown status',
      (d) => d.recordAttempt('T1', 'finished', [], [], 's'),
      /^status must be one of pending, in_progress, needs_review, needs_improvement, done, blocked, got "finished"$/,
    ],
    [
      'blockers not an array',
      (d) => d.recordAttempt('T1', 'done', 'x' as never, [], 's'),
      /^blockers must be an array of strings, got "x"$/,
    ],
    [
      'blockers with a number',
      (d) => d.recordAttempt('T1', 'done', ['a', 1] as never, [], 's'),
      /^blockers must be an array of strings, but blockers\[1\] is number 1$/,
    ],
    [
      'completedWork not an array',
      (d) => d.recordAttempt('T1', 'done', [], null as never, 's'),
      /^completedWork must be an array of strings, got null$/,
    ],
    [
      'sessionId not a string',
      (d) => d.recordAttempt('T1', 'done', [], [], 7 as never),
      /^sessionId must be a string/,
    ],
    ['detectLoop empty id', (d) => d.detectLoop(''), /^taskId must be a non-empty string/],
  ];
  it.each(cases)(
    '%s is an InvalidInputError naming the argument, and nothing is recorded',
    (_name, call, message) => {
      const { detector, attemptStore } = makeDetector();
      let caught: unknown;
      try {
        call(detector);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidInputError);
      expect(caught).toBeInstanceOf(LoopGuardError);
      expect((caught as LoopGuardError).code).toBe('invalid_input');
      expect((caught as Error).message).toMatch(message);
      expect(attemptStore.summarize(0).size).toBe(0);
    },
  );

  it('applyRecovery rejects something that is not a result', async () => {
    const { detector } = makeDetector();
    await expect(detector.applyRecovery(null as never)).rejects.toThrow(InvalidInputError);
  });

  const badOptions: Array<[Record<string, unknown>, RegExp]> = [
    [{ maxAttempts: 1 }, /"maxAttempts" .*2.*\(got number 1\)/],
    [{ maxAttempts: 2.5 }, /"maxAttempts"/],
    [{ attemptWindow: 0 }, /"attemptWindow"/],
    [{ attemptWindow: Number.POSITIVE_INFINITY }, /"attemptWindow"/],
    [{ attemptWindow: Number.NaN }, /"attemptWindow"/],
    [{ enableAutoUnblock: 'yes' }, /"enableAutoUnblock"/],
    [
      { maxAttempts: 5, maxAttemptsBeforeForceNext: 4 },
      /"maxAttemptsBeforeForceNext" must be at least maxAttempts/,
    ],
    [{ maxEvidence: 0 }, /"maxEvidence"/],
    [{ clock: {} }, /"clock" must have a now\(\) method/],
    [{ maxAtempts: 3 }, /maxAtempts/],
    [{ sharedStorage: true }, /"sharedStorage" needs an attemptStore to share/],
  ];
  it.each(badOptions)('option %o is a ConfigurationError naming it', (options, message) => {
    expect(() => new LoopDetector(new InMemoryStateMachine(), options as never)).toThrow(ConfigurationError);
    expect(() => new LoopDetector(new InMemoryStateMachine(), options as never)).toThrow(message);
  });

  it('a missing state machine is rejected', () => {
    expect(() => new LoopDetector(undefined as never)).toThrow(/stateMachine must implement StateMachine/);
  });

  it('ports are checked against every method the code calls, naming what is missing', () => {
    // an attempt store with 3 of its 6 methods used to pass, then prune threw on the 1000th attempt
    const partial = { append() {}, listSince: () => [], clear: () => 0 };
    expect(() => new LoopDetector(new InMemoryStateMachine(), { attemptStore: partial as never })).toThrow(
      /"attemptStore" must implement AttemptStore \(missing appendMany\(\), prune\(\), summarize\(\), summarizePage\(\)\)/,
    );
    const { transaction: _, ...withoutTransaction } = Object.fromEntries(
      Object.getOwnPropertyNames(InMemoryStateMachine.prototype).map((name) => [name, () => undefined]),
    );
    expect(() => new LoopDetector(withoutTransaction as never)).toThrow(
      /stateMachine must implement StateMachine \(missing transaction\(\)\)/,
    );
    const storage = new InMemoryStorage();
    const broken = { stateMachine: storage.stateMachine, attempts: partial, transaction: () => undefined };
    expect(() => new LoopDetector(broken as never)).toThrow(InvalidInputError);
    expect(() => new LoopDetector(broken as never)).toThrow(
      /storage\.attempts must implement AttemptStore \(missing appendMany\(\), prune\(\), summarize\(\), summarizePage\(\)\)/,
    );
  });

  it("the detector's attempts are sealed: validated once, adapters need not check them again", () => {
    const { detector } = makeDetector();
    const attempt = detector.recordAttempt('T1', 'blocked', ['b'], []);
    expect(isSealedAttempt(attempt)).toBe(true);
    expect(Object.isFrozen(attempt)).toBe(true);
    expect(isSealedAttempt({ ...attempt })).toBe(false);
  });
});

describe('presets and defaults', () => {
  it('defaults are the seed configuration', () => {
    const detector = new LoopDetector(new InMemoryStateMachine());
    expect(detector.options).toMatchObject({
      maxAttempts: 3,
      attemptWindow: 3_600_000,
      enableAutoUnblock: true,
      maxAttemptsBeforeForceNext: 5,
    });
  });

  it('the three presets carry the seed values', () => {
    expect(CONSERVATIVE_PRESET).toEqual({
      maxAttempts: 5,
      maxAttemptsBeforeForceNext: 8,
      enableAutoUnblock: false,
    });
    expect(AGGRESSIVE_PRESET).toEqual({
      maxAttempts: 2,
      maxAttemptsBeforeForceNext: 3,
      enableAutoUnblock: true,
    });
    expect(RECOMMENDED_PRESET).toEqual({
      maxAttempts: 3,
      maxAttemptsBeforeForceNext: 5,
      enableAutoUnblock: true,
    });
    expect(LOOP_DETECTOR_PRESETS).toEqual({
      conservative: CONSERVATIVE_PRESET,
      aggressive: AGGRESSIVE_PRESET,
      recommended: RECOMMENDED_PRESET,
    });
  });

  it('the aggressive preset detects at 2 attempts; the conservative one escalates blocked spins at 5', () => {
    const aggressive = makeDetector(AGGRESSIVE_PRESET).detector;
    aggressive.recordAttempt('T1', 'blocked', ['b'], [], 's');
    aggressive.recordAttempt('T1', 'blocked', ['b'], [], 's');
    expect(aggressive.detectLoop('T1').recommendation).toBe('unblock_authority');
    const conservative = makeDetector(CONSERVATIVE_PRESET).detector;
    for (let i = 0; i < 4; i++) conservative.recordAttempt('T1', 'blocked', ['b'], [], 's');
    expect(conservative.detectLoop('T1').isLooping).toBe(false);
    conservative.recordAttempt('T1', 'blocked', ['b'], [], 's');
    expect(conservative.detectLoop('T1').recommendation).toBe('escalate');
  });
});

describe('two rules corrected against WeatherVane cases', () => {
  it('blocked_task_spin needs a blocker: three blocked attempts with none grant nothing and are no progress', async () => {
    const { detector, stateMachine } = makeDetector();
    stateMachine.upsertTask({ id: 'T1' });
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'blocked', [], [], `s${i}`);
    expect(detector.detectLoop('T1').isLooping).toBe(false);
    // judged as no progress: a loop from maxAttemptsBeforeForceNext identical attempts
    for (let i = 3; i < 5; i++) detector.recordAttempt('T1', 'blocked', [], [], `s${i}`);
    const result = detector.detectLoop('T1');
    expect(result).toMatchObject({
      isLooping: true,
      loopType: 'no_progress_repeat',
      recommendation: 'force_next',
      attemptCount: 5,
    });
    const outcome = await detector.applyRecovery(result);
    expect(outcome).toMatchObject({ applied: true, action: 'force_next', loopType: 'no_progress_repeat' });
    expect(stateMachine.listContextEntries({ topics: ['unblock_authority'] })).toEqual([]);
  });

  it('no_progress_repeat needs identical attempts: blockers that change (A → B → C) are learning, not a loop', () => {
    const { detector } = makeDetector();
    detector.recordAttempt('T1', 'blocked', ['A'], [], 's1');
    detector.recordAttempt('T1', 'blocked', ['B'], [], 's2');
    detector.recordAttempt('T1', 'blocked', ['C'], [], 's3');
    expect(detector.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 3 });
    // the same with work in progress: same status and work, different blockers
    for (const blocker of ['flaky CI', 'lint', 'types'])
      detector.recordAttempt('T2', 'in_progress', [blocker], ['x']);
    expect(detector.detectLoop('T2').isLooping).toBe(false);
    // while identical attempts still are a loop
    for (let i = 0; i < 5; i++) detector.recordAttempt('T3', 'in_progress', ['lint'], ['x']);
    expect(detector.detectLoop('T3')).toMatchObject({ isLooping: true, loopType: 'no_progress_repeat' });
  });
});

describe('read-only calls keep nothing in memory', () => {
  /** The detector's per-task tracks: what memory it keeps per task id. */
  const tracksOf = (detector: LoopDetector) =>
    (detector as unknown as { cache: { tracks: Map<string, unknown> } }).cache.tracks;

  it('detectLoop on many unknown task ids keeps no track, and answers "no loop"', () => {
    const { detector } = makeDetector();
    for (let i = 0; i < 20_000; i++) {
      const result = detector.detectLoop(`unknown-${i}`);
      expect(result.isLooping).toBe(false);
    }
    expect(tracksOf(detector).size).toBe(0);
  });

  it('a rejected recordAttempt keeps no track either; a recorded one does, and is judged as before', () => {
    const { detector } = makeDetector();
    expect(() => detector.recordAttempt('T1', 'finished', [], [], 's')).toThrow(InvalidInputError);
    expect(tracksOf(detector).size).toBe(0);
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'done', [], [], 's');
    expect(tracksOf(detector).size).toBe(1);
    expect(detector.detectLoop('T1')).toMatchObject({ isLooping: true, loopType: 'completed_task_revisit' });
  });

  it('a task known only from storage is loaded and judged from storage', () => {
    const storage = new InMemoryStorage();
    const first = new LoopDetector(storage);
    for (let i = 0; i < 3; i++) first.recordAttempt('T1', 'done', [], [], 's');
    const second = new LoopDetector(storage);
    expect(second.detectLoop('T1')).toMatchObject({ isLooping: true, attemptCount: 3 });
    expect(second.detectLoop('T2').isLooping).toBe(false);
    expect(tracksOf(second).size).toBe(1);
  });
});

describe('size limits', () => {
  it('a task id longer than SIZE_LIMITS.taskIdLength is an InvalidInputError; nothing is recorded', () => {
    const { detector, attemptStore, stateMachine } = makeDetector();
    const long = 'T'.repeat(SIZE_LIMITS.taskIdLength + 1);
    const message = `taskId is 257 characters long; a task id has at most ${SIZE_LIMITS.taskIdLength}`;
    expect(() => detector.recordAttempt(long, 'done', [], [], 's')).toThrow(new InvalidInputError(message));
    expect(() => detector.detectLoop(long)).toThrow(message);
    expect(() => stateMachine.upsertTask({ id: long })).toThrow('task.id is 257 characters long');
    expect(attemptStore.listSince(long, 0)).toEqual([]);
    expect(stateMachine.listTasks()).toEqual([]);
    const longest = 'T'.repeat(SIZE_LIMITS.taskIdLength);
    expect(detector.recordAttempt(longest, 'done', [], [], 's').taskId).toBe(longest);
  });

  it('blocker and work lists are cut to SIZE_LIMITS with markers, deterministically', () => {
    const { detector } = makeDetector();
    const huge = 'x'.repeat(SIZE_LIMITS.itemLength + 10);
    const many = Array.from({ length: SIZE_LIMITS.listItems + 5 }, (_, i) => `work ${i}`);
    const attempt = detector.recordAttempt('T1', 'blocked', [huge], many, 's');
    expect(attempt.blockers).toEqual([`${'x'.repeat(SIZE_LIMITS.itemLength)} … [truncated 10 characters]`]);
    expect(attempt.completedWork).toHaveLength(SIZE_LIMITS.listItems + 1);
    expect(attempt.completedWork.at(-1)).toBe('… [5 more items not stored]');
    expect(attempt.completedWork.at(-2)).toBe(`work ${SIZE_LIMITS.listItems - 1}`);
    // the same oversized report twice is still the same blocker
    detector.recordAttempt('T1', 'blocked', [huge], many, 's');
    detector.recordAttempt('T1', 'blocked', [huge], many, 's');
    expect(detector.detectLoop('T1')).toMatchObject({ isLooping: true, loopType: 'blocked_task_spin' });
  });

  it('the evidence copied into a recovery is cut to the evidence limits', async () => {
    const { detector, stateMachine } = makeDetector();
    const long = 'y'.repeat(SIZE_LIMITS.evidenceItemLength + 1);
    const many = Array.from({ length: 30 }, (_, i) => `b${i}`);
    for (let i = 0; i < 3; i++) detector.recordAttempt('T1', 'blocked', [long, ...many], [long], 's');
    const outcome = await detector.applyRecovery(detector.detectLoop('T1'));
    expect(outcome.applied).toBe(true);
    const [entry] = stateMachine.listContextEntries({ taskId: 'T1' });
    const evidence = entry?.metadata.evidence as Array<{ blockers: string[]; completedWork: string[] }>;
    expect(evidence).toHaveLength(3);
    for (const attempt of evidence) {
      expect(attempt.blockers).toHaveLength(SIZE_LIMITS.evidenceListItems + 1);
      expect(attempt.blockers[0]).toBe(
        `${'y'.repeat(SIZE_LIMITS.evidenceItemLength)} … [truncated 1 character]`,
      );
      expect(attempt.blockers.at(-1)).toBe('… [11 more items not stored]');
      expect(attempt.completedWork[0]?.endsWith('[truncated 1 character]')).toBe(true);
    }
  });
});
