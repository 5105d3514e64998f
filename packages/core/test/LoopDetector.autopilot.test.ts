import { describe, expect, it } from 'vitest';
import { InMemoryStateMachine, LoopDetector, ManualClock } from '../src/index.js';

function detector(options: ConstructorParameters<typeof LoopDetector>[1] = {}) {
  const clock = new ManualClock(1_000);
  const stateMachine = new InMemoryStateMachine({ clock });
  return { clock, stateMachine, detector: new LoopDetector(stateMachine, { clock, ...options }) };
}

describe('blocker lists compare exactly (issue 9, item 5)', () => {
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
