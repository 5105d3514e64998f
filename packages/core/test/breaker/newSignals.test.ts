import { describe, expect, it } from 'vitest';
import { StagnationBreaker } from '../../src/breaker/StagnationBreaker.js';
import { isTestFile } from '../../src/breaker/TestOnlySignal.js';
import { ManualClock } from '../../src/kernel/clock.js';

const breaker = (options: Record<string, unknown> = {}) =>
  new StagnationBreaker({ runId: 'r1', clock: new ManualClock(0), ...options });

describe('the permission-denied signal', () => {
  it('opens after 2 iterations whose tool calls were denied (the default), naming the tools', () => {
    const b = breaker();
    expect(b.record({ iteration: 1, filesChanged: 1, permissionDenials: ['Bash'] }).tripped).toBe(false);
    const verdict = b.record({ iteration: 2, filesChanged: 1, permissionDenials: ['Write', 'Bash', 'Bash'] });
    expect(verdict.tripped).toBe(true);
    expect(verdict.reason).toBe(
      'permission_denied: permission denied for tools Bash, Write (2 in a row, threshold 2)',
    );
  });

  it('honours permissionDenialThreshold; an iteration without denials resets; unknown denials keep the streak', () => {
    const b = breaker({ permissionDenialThreshold: 3 });
    b.record({ iteration: 1, permissionDenials: ['Bash'] });
    b.record({ iteration: 2, permissionDenials: [] });
    b.record({ iteration: 3, permissionDenials: ['Bash'] });
    b.record({ iteration: 4 });
    expect(
      b
        .record({ iteration: 5, permissionDenials: ['Bash'] })
        .readings.find((r) => r.signal === 'permission_denied'),
    ).toMatchObject({ streak: 2, threshold: 3 });
    expect(b.record({ iteration: 6, permissionDenials: ['Bash'] }).tripped).toBe(true);
  });

  it('rejects a bad threshold naming the option', () => {
    expect(() => breaker({ permissionDenialThreshold: 0 })).toThrow(/permissionDenialThreshold/);
    expect(() => breaker({ testOnlyShare: 1.5 })).toThrow(/testOnlyShare/);
  });
});

describe('the test-only signal (seed 003: > 30 %)', () => {
  it('recognises test files', () => {
    expect(
      [
        'src/a.test.ts',
        'pkg/x_test.go',
        'tests/test_a.py',
        'test_b.py',
        'src/__tests__/a.js',
        'spec/a_spec.rb',
      ].every(isTestFile),
    ).toBe(true);
    expect(['src/a.ts', 'src/testing.ts', 'README.md', 'contest/a.py'].some(isTestFile)).toBe(false);
  });

  it('an agent that only rewrites tests opens the breaker once test-only iterations pass the share for stagnationThreshold iterations', () => {
    const b = breaker({ stagnationThreshold: 2 });
    const tests = { filesChanged: 1, changedFiles: ['src/a.test.ts'] };
    expect(b.record({ iteration: 1, ...tests }).readings.find((r) => r.signal === 'test_only')?.status).toBe(
      'clear',
    );
    expect(b.record({ iteration: 2, ...tests }).readings.find((r) => r.signal === 'test_only')?.status).toBe(
      'clear',
    );
    const third = b.record({ iteration: 3, ...tests });
    expect(third.readings.find((r) => r.signal === 'test_only')).toMatchObject({
      status: 'stalled',
      streak: 1,
    });
    const fourth = b.record({ iteration: 4, ...tests });
    expect(fourth.tripped).toBe(true);
    expect(fourth.reason).toMatch(
      /^test_only: test-only iterations: 4 of the last 4 that changed files \(over 30 %\)/,
    );
  });

  it('test-only iterations at or under the share are not stagnation; the share is an option', () => {
    const b = breaker({ stagnationThreshold: 1 });
    const code = { filesChanged: 2, changedFiles: ['src/a.ts', 'src/a.test.ts'] };
    const tests = { filesChanged: 1, changedFiles: ['src/a.test.ts'] };
    for (let i = 1; i <= 7; i++) expect(b.record({ iteration: i, ...code }).tripped).toBe(false);
    expect(b.record({ iteration: 8, ...tests }).tripped).toBe(false); // 1 of 8
    expect(b.record({ iteration: 9, ...tests }).tripped).toBe(false); // 2 of 9
    expect(b.record({ iteration: 10, ...tests }).tripped).toBe(false); // 3 of 10: 30 %, not over
    expect(b.record({ iteration: 11, ...tests }).tripped).toBe(true); // 4 of 10
    const lenient = breaker({ stagnationThreshold: 1, testOnlyShare: 0.5 });
    for (let i = 1; i <= 7; i++) lenient.record({ iteration: i, ...code });
    for (let i = 8; i <= 11; i++) expect(lenient.record({ iteration: i, ...tests }).tripped).toBe(false);
  });

  it('the window survives a snapshot', () => {
    const b = breaker({ stagnationThreshold: 2 });
    const tests = { filesChanged: 1, changedFiles: ['a.test.ts'] };
    for (let i = 1; i <= 3; i++) b.record({ iteration: i, ...tests });
    const restored = breaker({ stagnationThreshold: 2, snapshot: b.snapshot() });
    expect(restored.restoreNotice).toBeNull();
    expect(restored.record({ iteration: 4, ...tests }).tripped).toBe(true);
  });
});
