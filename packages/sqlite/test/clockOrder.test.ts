import { InMemoryStorage, LoopDetector, ManualClock } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { openLoopGuardDatabase } from '../src/index.js';

/** A clock that goes back between attempts: one ordering rule for memory and storage. */
describe('a clock that goes backwards', () => {
  const scenario = async (
    storageOf: (clock: ManualClock) => ConstructorParameters<typeof LoopDetector>[0],
  ) => {
    const clock = new ManualClock(1_000_000);
    const detector = new LoopDetector(storageOf(clock), { clock });
    detector.recordAttempt('T1', 'in_progress', [], ['started'], 's1');
    clock.set(500_000); // the clock steps back
    for (let i = 2; i <= 4; i++) {
      detector.recordAttempt('T1', 'done', [], ['checked'], `s${i}`);
      clock.advance(1);
    }
    const result = detector.detectLoop('T1');
    const outcome = await detector.applyRecovery(result);
    return { result, outcome, timestamps: result.evidence.map((a) => a.timestamp) };
  };

  it('SQLite and the detector agree: the loop it detects is the loop it recovers', async () => {
    const database = openLoopGuardDatabase(':memory:', {});
    const { result, outcome, timestamps } = await scenario(() => database.storage);
    expect(result).toMatchObject({ isLooping: true, loopType: 'completed_task_revisit' });
    expect(outcome).toMatchObject({ applied: true, action: 'force_next' });
    // never stamped before the task's newest attempt
    expect(timestamps).toEqual([1_000_000, 1_000_000, 1_000_000]);
    database.close();
  });

  it('memory gives the same result', async () => {
    const { result, outcome, timestamps } = await scenario(() => new InMemoryStorage());
    expect(result).toMatchObject({ isLooping: true, loopType: 'completed_task_revisit' });
    expect(outcome).toMatchObject({ applied: true, action: 'force_next' });
    expect(timestamps).toEqual([1_000_000, 1_000_000, 1_000_000]);
  });
});
