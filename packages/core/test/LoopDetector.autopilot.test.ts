import { describe, expect, it } from 'vitest';
import { InMemoryStateMachine, LoopDetector, ManualClock } from '../src/index.js';

function detector(options: ConstructorParameters<typeof LoopDetector>[1] = {}) {
  const clock = new ManualClock(1_000);
  const stateMachine = new InMemoryStateMachine({ clock });
  return { clock, stateMachine, detector: new LoopDetector(stateMachine, { clock, ...options }) };
}

describe('blocker lists compare exactly', () => {
  it("['a\\0b', 'c'] and ['a', 'b\\0c'] are different blockers: no blocked spin", () => {
    const { detector: d, clock } = detector();
    for (const blockers of [
      ['a\0b', 'c'],
      ['a', 'b\0c'],
      ['a\0b', 'c'],
    ]) {
      d.recordAttempt('T1', 'blocked', blockers, []);
      clock.advance(1);
    }
    expect(d.detectLoop('T1').loopType).not.toBe('blocked_task_spin');
  });

  it('the same blockers in another order still spin', () => {
    const { detector: d } = detector();
    for (const blockers of [
      ['a', 'b'],
      ['b', 'a'],
      ['a', 'b'],
    ])
      d.recordAttempt('T1', 'blocked', blockers, []);
    expect(d.detectLoop('T1').loopType).toBe('blocked_task_spin');
  });
});

describe('near-duplicate blockers compare by signature', () => {
  const timeouts = ['ETIMEDOUT after 1001 ms', 'ETIMEDOUT after 1003 ms', 'ETIMEDOUT after 1010 ms'];

  it('errors whose text changes every time are the same blocker; the raw text is the evidence', () => {
    const { detector: d } = detector();
    for (const blocker of timeouts) d.recordAttempt('T1', 'blocked', [blocker], []);
    const result = d.detectLoop('T1');
    expect(result).toMatchObject({ loopType: 'blocked_task_spin', recommendation: 'unblock_authority' });
    expect(result.evidence.map((a) => a.blockers[0])).toEqual(timeouts);
    expect(result.blockers).toEqual(['ETIMEDOUT after 1010 ms']);
  });

  it('blockerSignatures: false compares the exact text', () => {
    const { detector: d } = detector({ blockerSignatures: false });
    for (const blocker of timeouts) d.recordAttempt('T1', 'blocked', [blocker], []);
    expect(d.detectLoop('T1').isLooping).toBe(false);
  });

  it('different errors stay different blockers', () => {
    const { detector: d } = detector();
    for (const blocker of [
      'ETIMEDOUT after 1001 ms',
      'ECONNREFUSED 127.0.0.1:5432',
      'ETIMEDOUT after 1003 ms',
    ])
      d.recordAttempt('T1', 'blocked', [blocker], []);
    expect(d.detectLoop('T1').isLooping).toBe(false);
  });
});

describe('a budget per task', () => {
  const vary = (d: LoopDetector, count: number) => {
    for (let i = 0; i < count; i++) d.recordAttempt('T1', 'in_progress', [], [`tweaked line ${i}`]);
  };

  it('reports that vary every attempt escape the three rules but spend the budget (default 20)', async () => {
    const { detector: d, stateMachine } = detector();
    stateMachine.upsertTask({ id: 'T1', status: 'in_progress' });
    vary(d, 19);
    expect(d.detectLoop('T1').isLooping).toBe(false);
    vary(d, 1);
    const result = d.detectLoop('T1');
    expect(result).toMatchObject({
      loopType: 'attempt_budget_exhausted',
      recommendation: 'escalate',
      attemptCount: 20,
    });
    expect(result.evidence).toHaveLength(20);
    const outcome = await d.applyRecovery(result);
    expect(outcome).toMatchObject({ applied: true, action: 'escalate' });
    expect(stateMachine.getTask('T1')?.status).toBe('blocked');
    expect(d.openEscalation('T1')).not.toBeNull();
  });

  it('maxAttemptsPerTask sets the budget, null turns it off, and it cannot undercut force_next', () => {
    const small = detector({ maxAttemptsPerTask: 6 }).detector;
    vary(small, 6);
    expect(small.detectLoop('T1').loopType).toBe('attempt_budget_exhausted');
    const off = detector({ maxAttemptsPerTask: null }).detector;
    vary(off, 40);
    expect(off.detectLoop('T1').isLooping).toBe(false);
    expect(() => detector({ maxAttemptsPerTask: 4 })).toThrow(
      /"maxAttemptsPerTask" must be at least maxAttemptsBeforeForceNext/,
    );
    expect(detector({ maxAttemptsBeforeForceNext: 30 }).detector.options.maxAttemptsPerTask).toBe(30);
  });
});

describe('messages read as sentences', () => {
  it('a missing array item reads "is undefined", not "undefined undefined"', () => {
    const { detector: d } = detector();
    // biome-ignore lint/suspicious/noSparseArray: a hole is the point of the test
    expect(() => d.recordAttempt('T1', 'blocked', [, 'b'] as unknown as string[], [])).toThrow(
      'blockers must be an array of strings, but blockers[0] is undefined',
    );
  });

  it('an unknown option suggests the nearest known one', () => {
    expect(() => detector({ maxAttempt: 3 } as never)).toThrow(
      /LoopDetector options: unknown option "maxAttempt" \(did you mean "maxAttempts"\?\)\. Known options: maxAttempts, /,
    );
    expect(() => detector({ zzzzzz: 1 } as never)).toThrow(/unknown option "zzzzzz"\. Known options:/);
  });

  it('a revoked Proxy is described, not a raw TypeError', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const { detector: d } = detector();
    expect(() => d.recordAttempt('T1', 'blocked', proxy as never, [])).toThrow(
      'blockers must be an array of strings, got a revoked Proxy',
    );
  });
});
