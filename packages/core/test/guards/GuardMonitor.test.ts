import { describe, expect, it } from 'vitest';
import { GuardMonitor, GuardSet } from '../../src/entries/guards.js';
import { checkSafetyGuards } from '../../src/entries/seeds.js';
import { guardNameOf } from '../../src/guards/seedGuardNames.js';
import { InvalidInputError, ManualClock } from '../../src/index.js';

describe('GuardMonitor (seed 001 monitoring)', () => {
  it('starts empty', () => {
    expect(new GuardMonitor().snapshot()).toMatchObject({
      runs: 0,
      averageIterationsToCompletion: null,
      loopDetectionRate: null,
      averageIterationMs: null,
      guardTriggers: { max_iterations: 0, repeated_output: 0 },
    });
  });

  it('accumulates the four metrics', () => {
    const monitor = new GuardMonitor();
    monitor.recordCompletion(3);
    monitor.recordCompletion(5);
    monitor.recordTrigger('repeated_output');
    monitor.recordTrigger('max_iterations');
    monitor.recordIteration(1000);
    monitor.recordIteration(3000);
    const snapshot = monitor.snapshot();
    expect(snapshot).toMatchObject({
      runs: 4,
      completedRuns: 2,
      blockedRuns: 2,
      averageIterationsToCompletion: 4,
      loopDetectionRate: 0.25,
      iterations: 2,
      averageIterationMs: 2000,
    });
    expect(snapshot.guardTriggers.max_iterations).toBe(1);
    expect(snapshot.guardTriggerFrequency.max_iterations).toBe(0.25);
    expect(snapshot.guardTriggerFrequency.thrashing).toBe(0);
    monitor.reset();
    expect(monitor.snapshot().runs).toBe(0);
  });

  it("counts seed 001's loop_detection, mapped to the project's name, as a loop too", () => {
    const monitor = new GuardMonitor();
    const clock = new ManualClock(0);
    const result = checkSafetyGuards(1, 0, 0, ['same', 'same', 'same'], undefined, clock);
    expect(result.guard).toBe('loop_detection');
    monitor.recordTrigger(guardNameOf(result.guard ?? 'loop_detection'));
    expect(monitor.snapshot().loopDetectionRate).toBe(1);
    expect(monitor.snapshot().guardTriggers.repeated_output).toBe(1);
  });

  it('maps every seed guard name to one project name', () => {
    expect(guardNameOf('circuit_breaker')).toBe('consecutive_failures');
    expect(guardNameOf('consecutive_errors')).toBe('consecutive_failures');
    expect(guardNameOf('loop_detection')).toBe('repeated_output');
    expect(guardNameOf('max_runtime')).toBe('max_runtime');
    expect(guardNameOf('thrashing')).toBe('thrashing');
  });

  it("subscribes to a GuardSet's guardTriggered and detaches", () => {
    const guards = new GuardSet({ maxIterations: 1 });
    const monitor = new GuardMonitor();
    const detach = monitor.attach(guards);
    guards.check({ iteration: 2, history: [] });
    expect(monitor.snapshot().guardTriggers.max_iterations).toBe(1);
    detach();
    guards.check({ iteration: 2, history: [] });
    expect(monitor.snapshot().guardTriggers.max_iterations).toBe(1);
  });

  it('rejects bad measurements', () => {
    const monitor = new GuardMonitor();
    expect(() => monitor.recordIteration(-1)).toThrow(InvalidInputError);
    expect(() => monitor.recordCompletion(1.5)).toThrow(/iterations must be an integer/);
    expect(() => monitor.recordTrigger('' as never)).toThrow(/guard must be a guard name/);
    // seed names are mapped before they reach the monitor: one vocabulary
    expect(() => monitor.recordTrigger('circuit_breaker' as never)).toThrow(/guard must be a guard name/);
  });
});
