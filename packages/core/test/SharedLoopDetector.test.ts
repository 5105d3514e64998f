import { describe, expect, it } from 'vitest';
import {
  asyncInMemoryStorage,
  ConfigurationError,
  InMemoryAttemptStore,
  InMemoryStorage,
  InvalidInputError,
  LoopDetector,
  ManualClock,
  SharedLoopDetector,
} from '../src/index.js';

const T0 = 1_760_825_000_000;

function setup(options: ConstructorParameters<typeof SharedLoopDetector>[1] = {}) {
  const clock = new ManualClock(T0);
  const storage = asyncInMemoryStorage({ clock });
  return { clock, storage, detector: new SharedLoopDetector(storage, { clock, ...options }) };
}

describe('SharedLoopDetector', () => {
  it('rejects options that do not apply and storage that is not asynchronous', () => {
    const storage = asyncInMemoryStorage();
    expect(
      () => new SharedLoopDetector(storage, { attemptStore: new InMemoryAttemptStore() } as never),
    ).toThrow(ConfigurationError);
    expect(() => new SharedLoopDetector(storage, { sharedStorage: true } as never)).toThrow(
      /"sharedStorage"/,
    );
    expect(() => new SharedLoopDetector(storage, { maxAttempts: 0 })).toThrow(ConfigurationError);
    expect(() => new SharedLoopDetector({} as never)).toThrow(InvalidInputError);
  });

  it('judges exactly as LoopDetector does, call for call', async () => {
    const { clock, detector } = setup({ maxAttempts: 3 });
    const sync = new LoopDetector(new InMemoryStorage({ clock }), {
      clock,
      maxAttempts: 3,
    });
    const script: Array<[string, string[], string[]]> = [
      ['blocked', ['no token'], []],
      ['blocked', ['no token'], []],
      ['in_progress', [], ['a']],
      ['in_progress', [], ['a']],
      ['in_progress', [], ['a']],
      ['done', [], []],
      ['done', [], []],
      ['done', [], []],
    ];
    for (const [status, blockers, work] of script) {
      clock.advance(1000);
      await detector.recordAttempt('T1', status, blockers, work, 's');
      sync.recordAttempt('T1', status, blockers, work, 's');
      expect(await detector.detectLoop('T1')).toEqual(sync.detectLoop('T1'));
    }
  });

  it('fires its events after the writes, with what was written', async () => {
    const { storage, detector } = setup({ maxAttempts: 3 });
    const events: string[] = [];
    detector.on('attemptRecorded', async (attempt) => {
      const stored = await storage.attempts.listSince(attempt.taskId, 0);
      events.push(`recorded ${stored.length}`);
    });
    detector.on('loopDetected', (result) => events.push(`detected ${result.loopType}`));
    detector.on('recoveryApplied', (outcome) => events.push(`applied ${outcome.action}`));
    for (let i = 0; i < 3; i++) await detector.recordAttempt('T1', 'done', [], []);
    await detector.recoverIfLooping('T1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([
      'recorded 1',
      'recorded 2',
      'recorded 3',
      'detected completed_task_revisit',
      'applied force_next',
    ]);
  });

  it('prunes expired attempts every pruneEvery records', async () => {
    const { clock, storage, detector } = setup({ attemptWindow: 60_000, pruneEvery: 3 });
    await detector.recordAttempt('old', 'in_progress', [], ['x']);
    clock.advance(60_001);
    await detector.recordAttempt('T1', 'in_progress', [], ['y']);
    expect(await storage.attempts.listSince('old', 0)).toHaveLength(1);
    await detector.recordAttempt('T1', 'in_progress', [], ['z']);
    expect(await storage.attempts.listSince('old', 0)).toEqual([]);
  });

  it('rejects bad arguments naming them, writing nothing', async () => {
    const { storage, detector } = setup();
    await expect(detector.recordAttempt('', 'done', [], [])).rejects.toThrow(/taskId/);
    await expect(detector.recordAttempt('T1', 'done', 'x' as never, [])).rejects.toThrow(/blockers/);
    await expect(detector.applyRecovery(null as never)).rejects.toThrow(InvalidInputError);
    await expect(detector.detectLoop('')).rejects.toThrow(/taskId/);
    expect(await storage.attempts.summarize(0)).toEqual(new Map());
    expect(await detector.applyRecovery({ ...(await detector.detectLoop('T1')) })).toEqual({
      applied: false,
      taskId: 'T1',
      reason: 'The result is not a loop.',
    });
  });
});
