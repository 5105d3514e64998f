import { describe, expect, it, vi } from 'vitest';

/** Every schema core makes starts with a call of one of `z`'s makers (`z.object`, `z.number`, ...): counted here. */
const made = vi.hoisted(() => ({ count: 0 }));
vi.mock('zod', async (importOriginal) => {
  const actual = await importOriginal<typeof import('zod')>();
  const z = new Proxy(actual.z, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function' || typeof key !== 'string' || !/^[a-z]/.test(key)) return value;
      return (...args: unknown[]) => {
        made.count++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ...actual, z };
});

describe("the step detector's snapshot schemas", () => {
  it('are made when a snapshot that is not sealed is restored: not when core loads, nor for a sealed one', async () => {
    // The hook's startup snapshot holds what loading core makes, and every hook call deserializes it:
    // schemas that only a snapshot from elsewhere needs are left out of it (parseSnapshotPart).
    const { StepLoopDetector } = await import('../../src/entries/steps.js');
    const { turn } = await import('./helpers.js');
    const detector = new StepLoopDetector();
    for (const step of [
      ...turn('npm test', 'Error at a.py:12: boom', { error: true }),
      ...turn({ path: 'a.py', line: 3 }, 'edited', { tool: 'edit' }),
      { type: 'message' as const, text: 'Let me check.' },
      ...turn('cat a.py', 'x = 1'),
    ]) {
      detector.observe(step);
    }
    const loaded = made.count;
    expect(StepLoopDetector.restoreSealed(detector.sealedSnapshot()).stepCount).toBe(detector.stepCount);
    expect(made.count).toBe(loaded);
    expect(StepLoopDetector.restore(detector.snapshot()).stepCount).toBe(detector.stepCount);
    // the envelope, the history, the probes' ledger, the ladder, the rules' states and their parts
    expect(made.count - loaded).toBeGreaterThan(100);
  });
});
