import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoopDetector } from '../attempts/LoopDetector.js';
import type { LoopDetectorOptions } from '../attempts/loopDetectorOptions.js';
import { T0 } from './contractSubject.js';
import type { SyncContractSubject } from './syncStorageContract.js';

/**
 * `LoopDetector` on synchronous ports: a restarted detector resumes from storage, and an attempt with its transition is stored whole or not at all.
 * @param create - opens a fresh synchronous adapter (empty storage, manual clock at {@link T0}) for each test.
 */
export function syncDetectorContract(create: () => SyncContractSubject): void {
  let a: SyncContractSubject;
  beforeEach(() => {
    a = create();
  });
  afterEach(() => {
    a.close();
  });
  describe('LoopDetector end to end', () => {
    const detectorOn = (options: LoopDetectorOptions = {}) =>
      new LoopDetector(a.stateMachine, { attemptStore: a.attemptStore, clock: a.clock, ...options });

    it('a second detector on the same storage resumes: attempts in the window and the grant state', async () => {
      const first = detectorOn();
      const blockers = ['missing auth token'];
      for (let i = 0; i < 2; i++) first.recordAttempt('T1', 'blocked', blockers, [], `s${i}`);
      const second = detectorOn();
      second.recordAttempt('T1', 'blocked', blockers, [], 's2');
      const result = second.detectLoop('T1');
      expect(result).toMatchObject({ isLooping: true, recommendation: 'unblock_authority', attemptCount: 3 });
      expect((await second.applyRecovery(result)).applied).toBe(true);
      // the first detector's cached view is stale; storage decides: nothing to recover twice
      const stale = await first.applyRecovery({ ...result });
      expect(stale.applied).toBe(false);

      const third = detectorOn();
      expect(third.detectLoop('T1').isLooping).toBe(false);
      for (let i = 0; i < 3; i++) third.recordAttempt('T1', 'blocked', blockers, [], `t${i}`);
      expect(third.detectLoop('T1').recommendation).toBe('escalate');
    });

    it('attempts outside the window do not count after a restart', () => {
      const first = detectorOn({ attemptWindow: 60_000 });
      for (let i = 0; i < 3; i++) first.recordAttempt('T1', 'done', [], [], `s${i}`);
      a.clock.advance(60_001);
      const second = detectorOn({ attemptWindow: 60_000 });
      expect(second.detectLoop('T1')).toMatchObject({ isLooping: false, attemptCount: 0 });
      expect(second.getStatus()).toEqual({});
      expect(second.prune()).toBe(3);
    });
  });
}
