import { describe, expect, it, vi } from 'vitest';

/** Every schema core makes starts with a call of one of `z`'s makers (`z.object`, `z.number`, ...): counted here. */
const made = vi.hoisted(() => ({ count: 0 }));
vi.mock('zod', async (importOriginal) =>
  (await import('../zodMakers.js')).countingZod(await importOriginal<typeof import('zod')>(), made),
);

describe("core's schemas, made on first use", () => {
  it('none is made when core loads, nor for the default options or a sealed restore', async () => {
    // The hook's startup snapshot holds what loading its modules makes, and zod's code is evaluated
    // only when a first schema is made: a hook call that validates nothing never pays for zod.
    const { defaultStepLoopDetectorOptions, parseStepLoopDetectorOptions, StepLoopDetector } = await import(
      '../../src/entries/steps.js'
    );
    await import('../../src/entries/spend.js');
    expect(made.count).toBe(0);
    const logger = { child: () => logger } as never;
    const defaults = defaultStepLoopDetectorOptions(logger);
    const detector = new StepLoopDetector(defaults);
    const restored = StepLoopDetector.restoreSealed(detector.sealedSnapshot(), defaults);
    expect(restored.stepCount).toBe(0);
    expect(made.count).toBe(0);
    // what validating `{ logger }` gives, made without zod, frozen and taken as it is
    expect(defaults).toEqual(parseStepLoopDetectorOptions({ logger }));
    expect(Object.isFrozen(defaults)).toBe(true);
    expect(made.count).toBeGreaterThan(10);
    expect(() => defaultStepLoopDetectorOptions({} as never)).toThrow(/logger/);
  });
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
