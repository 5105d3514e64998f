import { asyncInMemoryStorage, ConfigurationError, ManualClock, SharedLoopDetector } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { OrchestratorLoop } from '../src/index.js';
import { report, runTask, scriptedPolicy, T0 } from './helpers.js';

describe('OrchestratorLoop with a SharedLoopDetector', () => {
  it('needs no state machine, records through the shared detector and recovers the loop before executing', async () => {
    const clock = new ManualClock(T0);
    const storage = asyncInMemoryStorage({ clock });
    await storage.stateMachine.upsertTask({ id: 'T1' });
    const detector = new SharedLoopDetector(storage, { clock, maxAttempts: 3 });
    let executed = 0;
    const loop = new OrchestratorLoop({
      detector,
      clock,
      policy: scriptedPolicy([runTask('T1'), runTask('T1'), runTask('T1'), runTask('T1')]),
      executor: async () => {
        executed += 1;
        return report('done', ['implemented']);
      },
    });
    const recovered: string[] = [];
    loop.on('recoveryApplied', (outcome) => recovered.push(outcome.action));

    for (let i = 0; i < 3; i++) await loop.tick();
    expect(loop.getStatus().loopDetection).toEqual({ T1: { attemptCount: 3, lastAttempt: T0 } });
    const fourth = await loop.tick();

    expect(executed).toBe(3);
    expect(fourth.details).toMatchObject({ loopRecoveryApplied: true });
    expect(recovered).toEqual(['force_next']);
    expect(await storage.stateMachine.listContextEntries({ topics: ['loop_recovery'] })).toHaveLength(1);
    expect(loop.getStatus().loopDetection).toEqual({});
  });

  it('requires a state machine when no detector is given', () => {
    const options = { policy: scriptedPolicy([]), executor: async () => report('done') };
    expect(() => new OrchestratorLoop(options)).toThrow(ConfigurationError);
    expect(() => new OrchestratorLoop(options)).toThrow(
      /"stateMachine" is required unless a detector is given/,
    );
  });
});
