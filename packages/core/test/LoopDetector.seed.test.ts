import { describe, expect, it } from 'vitest';
import { makeDetector } from './helpers.js';

describe('seed 002 test cases', () => {
  it('Test 1: completed task revisit', () => {
    const { detector: loopDetector } = makeDetector();
    for (let i = 0; i < 4; i++) {
      loopDetector.recordAttempt('T3.4.2', 'done', [], ['Implemented dashboard.tsx'], `session_${i}`);
    }
    const result = loopDetector.detectLoop('T3.4.2');
    expect(result.isLooping).toBe(true);
    expect(result.loopType).toBe('completed_task_revisit');
    expect(result.recommendation).toBe('force_next');
    expect(result.attemptCount).toBe(4);
  });

  it('Test 2: blocked task spin', () => {
    const { detector: loopDetector } = makeDetector();
    const blockers = ['critic:design_system unavailable'];
    for (let i = 0; i < 3; i++) loopDetector.recordAttempt('T3.4.3', 'blocked', blockers, [], `session_${i}`);
    const result = loopDetector.detectLoop('T3.4.3');
    expect(result.isLooping).toBe(true);
    expect(result.loopType).toBe('blocked_task_spin');
    expect(result.recommendation).toBe('unblock_authority');
    expect(result.blockers).toEqual(['critic:design_system unavailable']);
    expect(result.attemptCount).toBe(3);
  });

  it('Test 3: no progress repeat', () => {
    const { detector: loopDetector } = makeDetector();
    const work = ['Read file A', 'Parse config'];
    for (let i = 0; i < 5; i++) loopDetector.recordAttempt('T7.1.2', 'in_progress', [], work, `session_${i}`);
    const result = loopDetector.detectLoop('T7.1.2');
    expect(result.isLooping).toBe(true);
    expect(result.loopType).toBe('no_progress_repeat');
    expect(result.recommendation).toBe('force_next');
    expect(result.attemptCount).toBe(5);
  });

  it('the Logs section: detection, grant and recovery lines', async () => {
    const { detector, messages } = makeDetector();
    for (let i = 0; i < 3; i++)
      detector.recordAttempt('T3.4.3', 'blocked', ['critic:design_system unavailable'], [], `s${i}`);
    await detector.applyRecovery(detector.detectLoop('T3.4.3'));
    expect(messages()).toEqual([
      'Loop detected: blocked_task_spin, taskId=T3.4.3, attemptCount=3, recommendation=unblock_authority',
      'Granting unblock authority for T3.4.3',
      'Loop recovery applied: unblock_authority',
    ]);
  });

  it('the Before/After example: the fourth pick of a done task is forced to the next task', async () => {
    const { detector, stateMachine } = makeDetector();
    stateMachine.upsertTask({ id: 'T3.4.2', status: 'done' });
    stateMachine.upsertTask({ id: 'T3.4.3' });
    const work = ['Checking if task complete...', 'Verifying implementation...', 'Running final checks...'];
    for (const [i, w] of work.entries()) {
      expect(detector.detectLoop('T3.4.2').isLooping).toBe(false);
      detector.recordAttempt('T3.4.2', 'done', [], [w], `session_${i + 1}`);
    }
    const fourth = detector.detectLoop('T3.4.2');
    expect(fourth).toMatchObject({ isLooping: true, loopType: 'completed_task_revisit', attemptCount: 3 });
    const outcome = await detector.applyRecovery(fourth);
    expect(outcome.applied).toBe(true);
    expect(stateMachine.listTasks({ statuses: ['pending'] }).map((t) => t.id)).toEqual(['T3.4.3']);
  });

  it('the dashboard: getStatus gives attemptCount and lastAttempt per task', () => {
    const { detector, clock } = makeDetector();
    detector.recordAttempt('T3.4.2', 'in_progress', [], ['a'], 's1');
    clock.advance(1000);
    detector.recordAttempt('T3.4.2', 'in_progress', [], ['b'], 's2');
    detector.recordAttempt('T7.1.2', 'in_progress', [], ['a'], 's1');
    expect(detector.getStatus()).toEqual({
      'T3.4.2': { attemptCount: 2, lastAttempt: 1_760_825_001_000 },
      'T7.1.2': { attemptCount: 1, lastAttempt: 1_760_825_001_000 },
    });
  });
});
