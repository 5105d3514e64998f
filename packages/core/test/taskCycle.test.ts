import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findTaskCycle } from '../src/attempts/taskCycle.js';
import type { Attempt } from '../src/index.js';

const attempt = (
  taskId: string,
  work: string[] = ['same'],
  status: Attempt['status'] = 'in_progress',
): Attempt => ({
  taskId,
  timestamp: 0,
  status,
  blockers: [],
  completedWork: work,
  sessionId: '',
});
const options = { cycleRounds: 3, maxCycleTasks: 3 };

describe('findTaskCycle', () => {
  it('finds T1 → T2 after three rounds, not before', () => {
    const twoRounds = ['T1', 'T2', 'T1', 'T2'].map((id) => attempt(id));
    expect(findTaskCycle(twoRounds, options)).toBeNull();
    const cycle = findTaskCycle([...twoRounds, attempt('T1'), attempt('T2')], options);
    expect(cycle).toMatchObject({ tasks: ['T1', 'T2'], rounds: 3 });
    expect(cycle?.evidence).toHaveLength(6);
  });

  it('finds a three-task cycle, and none when one task progresses', () => {
    const ids = ['T1', 'T2', 'T3', 'T1', 'T2', 'T3', 'T1', 'T2', 'T3'];
    expect(
      findTaskCycle(
        ids.map((id) => attempt(id)),
        options,
      )?.tasks,
    ).toEqual(['T1', 'T2', 'T3']);
    const progressing = ids.map((id, i) => attempt(id, id === 'T2' ? [`step ${i}`] : ['same']));
    expect(findTaskCycle(progressing, options)).toBeNull();
  });

  it('a single task repeating is not a cross-task cycle', () => {
    expect(
      findTaskCycle(
        Array.from({ length: 9 }, () => attempt('T1')),
        options,
      ),
    ).toBeNull();
  });

  it('maxCycleTasks bounds the cycle size', () => {
    const ids = ['T1', 'T2', 'T3', 'T1', 'T2', 'T3', 'T1', 'T2', 'T3'];
    expect(
      findTaskCycle(
        ids.map((id) => attempt(id)),
        { cycleRounds: 3, maxCycleTasks: 2 },
      ),
    ).toBeNull();
  });

  it("any attempt whose outcome differs from its task's previous one breaks the cycle (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 5 }), fc.integer({ min: 2, max: 3 }), (index, size) => {
        const ids = Array.from({ length: size * 3 }, (_, i) => `T${i % size}`);
        const attempts = ids.map((id) => attempt(id));
        const changed = Math.min(index + size - 2, attempts.length - 1);
        attempts[changed] = attempt(ids[changed] as string, ['new work']);
        expect(findTaskCycle(attempts, options)).toBeNull();
      }),
    );
  });
});
