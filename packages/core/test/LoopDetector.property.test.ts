import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TASK_STATUSES, type TaskStatus } from '../src/index.js';
import { makeDetector } from './helpers.js';

interface Step {
  taskId: string;
  status: TaskStatus;
  blockers: string[];
  work: string[];
  advance: number;
}

const step = fc.record({
  taskId: fc.constantFrom('A', 'B'),
  status: fc.constantFrom<TaskStatus>(...TASK_STATUSES),
  blockers: fc.array(fc.constantFrom('x', 'y'), { maxLength: 2 }),
  work: fc.array(fc.constantFrom('p', 'q'), { maxLength: 2 }),
  advance: fc.constantFrom(0, 10, 400),
});

/** Independent reference: counts the newest equal attempts by scanning the window backwards. */
function referenceLoopType(window: Step[], maxAttempts: number): string | null {
  const same = (a: string[], b: string[]) =>
    [...a].sort().join('|') === [...b].sort().join('|') && a.length === b.length;
  const run = (pred: (s: Step, last: Step) => boolean) => {
    const last = window.at(-1);
    if (!last) return 0;
    let n = 0;
    for (let i = window.length - 1; i >= 0 && pred(window[i] as Step, last); i--) n++;
    return n;
  };
  const last = window.at(-1);
  if (!last) return null;
  if (last.status === 'done' && run((s) => s.status === 'done') >= maxAttempts)
    return 'completed_task_revisit';
  // a blocked spin needs at least one blocker
  if (
    last.status === 'blocked' &&
    last.blockers.length > 0 &&
    run((s, l) => s.status === 'blocked' && same(s.blockers, l.blockers)) >= maxAttempts
  ) {
    return 'blocked_task_spin';
  }
  // no progress means identical attempts: status, blockers and completed work
  if (
    run((s, l) => s.status === l.status && same(s.blockers, l.blockers) && same(s.work, l.work)) >=
    maxAttempts
  )
    return 'no_progress_repeat';
  return null;
}

describe('LoopDetector invariants', () => {
  it('the incremental judgement equals a scan of the window, for any history', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const { detector, clock } = makeDetector({ attemptWindow: 1000 });
        const recorded: Array<Step & { at: number }> = [];
        for (const s of steps) {
          clock.advance(s.advance);
          detector.recordAttempt(s.taskId, s.status, s.blockers, s.work, 'session');
          recorded.push({ ...s, at: clock.now() });
          for (const taskId of ['A', 'B']) {
            const window = recorded.filter((r) => r.taskId === taskId && r.at >= clock.now() - 1000);
            const result = detector.detectLoop(taskId);
            expect(result.loopType).toBe(referenceLoopType(window, 3));
            if (!result.isLooping) expect(result.attemptCount).toBe(window.length);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("recording never changes the caller's arrays and never throws on well-formed input", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 20 }), (steps) => {
        const { detector } = makeDetector();
        for (const s of steps) {
          const blockers = [...s.blockers];
          const work = [...s.work];
          detector.recordAttempt(s.taskId, s.status, blockers, work, 's');
          detector.detectLoop(s.taskId);
          expect(blockers).toEqual(s.blockers);
          expect(work).toEqual(s.work);
        }
      }),
    );
  });

  it('after any applied recovery the task has no attempts and is not looping', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 30 }), async (steps) => {
        const { detector, stateMachine } = makeDetector();
        for (const s of steps) {
          stateMachine.upsertTask({ id: s.taskId });
          detector.recordAttempt(s.taskId, s.status, s.blockers, s.work, 's');
          const result = detector.detectLoop(s.taskId);
          if (result.isLooping) {
            const outcome = await detector.applyRecovery(result);
            expect(outcome.applied).toBe(true);
            expect(detector.detectLoop(s.taskId)).toMatchObject({ isLooping: false, attemptCount: 0 });
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
