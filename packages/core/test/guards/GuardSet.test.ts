import { describe, expect, it } from 'vitest';
import { type GuardIteration, GuardSet, type GuardTrigger } from '../../src/entries/guards.js';
import { GUARD_ORDER } from '../../src/guards/Guard.js';
import { ConfigurationError, InvalidInputError, ManualClock } from '../../src/index.js';
import { outputSignature } from '../../src/signatures/outputSignature.js';

const MINUTE = 60_000;
const START = 1_760_825_000_000;
const failing = (test: string) =>
  `FAIL  src/a.test.ts > ${test}\nAssertionError: expected 1 to be 2\n ❯ src/a.test.ts:12:5`;
const RATE_LIMIT = 'Error: 429 Too Many Requests (rate_limit_error)';

function make(options: ConstructorParameters<typeof GuardSet>[0] = {}) {
  const clock = new ManualClock(START);
  const guards = new GuardSet({ clock, ...options });
  const triggers: GuardTrigger[] = [];
  guards.on('guardTriggered', (trigger) => triggers.push(trigger));
  return { clock, guards, triggers };
}

const iterations = (...entries: Omit<GuardIteration, 'iteration'>[]): GuardIteration[] =>
  entries.map((entry, i) => ({ iteration: i + 1, ...entry }));

describe('GuardSet order and defaults', () => {
  it('runs the guards in the unified order (docs/decisions.md: guard order)', () => {
    expect(make().guards.guards.map((g) => g.name)).toEqual([...GUARD_ORDER]);
    expect(GUARD_ORDER).toEqual([
      'max_iterations',
      'max_runtime',
      'consecutive_failures',
      'repeated_output',
      'quality_regression',
      'thrashing',
    ]);
  });

  it('applies the defaults', () => {
    expect(make().guards.options).toMatchObject({
      maxIterations: 10,
      maxRuntimeMinutes: 15,
      consecutiveFailureLimit: 3,
      loopThreshold: 3,
      thrashingThreshold: 5,
      exemptSignatures: [],
    });
  });

  it('lets a healthy run continue', () => {
    const { guards, triggers } = make();
    const result = guards.check({
      iteration: 3,
      startedAt: START,
      history: iterations({ passed: true }, { passed: true }),
    });
    expect(result).toEqual({ canContinue: true, infrastructureError: null });
    expect(triggers).toEqual([]);
  });

  it('returns the first guard that blocks when several do, and emits it', () => {
    const { guards, clock, triggers } = make();
    clock.advance(20 * MINUTE);
    const history = iterations(
      ...Array.from({ length: 10 }, () => ({ output: failing('adds'), passed: false })),
    );
    const result = guards.check({ iteration: 11, startedAt: START, history });
    expect(result).toMatchObject({
      canContinue: false,
      blockedBy: 'max_iterations',
      message: 'Iteration 11 exceeds maximum of 10. Circuit breaker triggered.',
      evidence: { iteration: 11, maxIterations: 10 },
    });
    expect(triggers).toHaveLength(1);
    expect(triggers[0]).toMatchObject({ guard: 'max_iterations', iteration: 11, at: START + 20 * MINUTE });
  });
});

describe('GuardSet guards', () => {
  it('max iterations: maxIterations changes behaviour', () => {
    expect(make().guards.check({ iteration: 6, history: [] }).canContinue).toBe(true);
    expect(make({ maxIterations: 5 }).guards.check({ iteration: 6, history: [] })).toMatchObject({
      blockedBy: 'max_iterations',
      message: 'Iteration 6 exceeds maximum of 5. Circuit breaker triggered.',
    });
  });

  it('max runtime: blocks at the limit on the injected clock; maxRuntimeMinutes changes behaviour', () => {
    const { guards, clock } = make();
    clock.advance(15 * MINUTE - 1);
    expect(guards.check({ iteration: 2, startedAt: START, history: [] }).canContinue).toBe(true);
    clock.advance(1);
    expect(guards.check({ iteration: 2, startedAt: START, history: [] })).toMatchObject({
      blockedBy: 'max_runtime',
      message: 'max_runtime (15min) exceeded',
      evidence: { elapsedMinutes: 15, maxRuntimeMinutes: 15 },
    });
    expect(guards.check({ iteration: 2, history: [] }).canContinue).toBe(true);
    const longer = make({ maxRuntimeMinutes: 30 });
    longer.clock.advance(20 * MINUTE);
    expect(longer.guards.check({ iteration: 2, startedAt: START, history: [] }).canContinue).toBe(true);
  });

  it('consecutive failures: counts failed validations and outputs with errors', () => {
    const history = iterations(
      { passed: false, output: failing('one') },
      { output: 'src/a.ts(1,1): error TS2304: Cannot find name x' },
      { passed: false, output: failing('three') },
    );
    expect(make().guards.check({ iteration: 4, history })).toMatchObject({
      blockedBy: 'consecutive_failures',
      message:
        'Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3). Manual intervention required.',
      evidence: { consecutiveFailures: 3, limit: 3, iterations: [1, 2, 3] },
    });
    expect(make({ consecutiveFailureLimit: 4 }).guards.check({ iteration: 4, history }).canContinue).toBe(
      true,
    );
  });

  it('consecutive failures: infrastructure errors neither count nor break the run', () => {
    const { guards } = make();
    const history = iterations(
      { passed: false, output: failing('one') },
      { passed: false, output: RATE_LIMIT },
      { passed: false, output: 'read ECONNRESET' },
      { passed: false, output: failing('two') },
    );
    const result = guards.check({ iteration: 5, history });
    expect(result).toEqual({ canContinue: true, infrastructureError: null });
    history.push({ iteration: 5, passed: false, output: failing('three') });
    expect(guards.check({ iteration: 6, history })).toMatchObject({
      blockedBy: 'consecutive_failures',
      evidence: { iterations: [1, 4, 5] },
    });
  });

  it('reports an infrastructure error on the newest iteration so that callers back off', () => {
    const history = iterations({ output: 'HTTP 503 Service Unavailable' });
    expect(make().guards.check({ iteration: 2, history })).toEqual({
      canContinue: true,
      infrastructureError: 'server_error',
    });
  });

  it('repeated output: the same signature three times, not the same text', () => {
    const { guards } = make({ consecutiveFailureLimit: 10 });
    const history = iterations(
      { output: '\u001b[31mTypeError: x is undefined\u001b[0m\n    at run (/app/src/a.js:10:3)' },
      { output: 'TypeError: y is undefined\n    at run (/app/src/a.js:42:9)' },
      { output: 'TypeError: x is undefined\n    at run (/app/src/a.js:11:1) 2025-01-01T00:00:00Z' },
    );
    expect(guards.check({ iteration: 4, history })).toMatchObject({
      blockedBy: 'repeated_output',
      message: 'Loop detected - same output repeated',
      evidence: { signature: 'error:TypeError@/app/src/a.js', threshold: 3, iterations: [1, 2, 3] },
    });
  });

  it('repeated output: different outputs, infrastructure errors and missing outputs do not loop', () => {
    const { guards } = make();
    const edits = iterations(
      { output: 'Edited src/a.ts' },
      { output: 'Edited src/b.ts' },
      { output: 'Edited src/a.ts' },
    );
    expect(guards.check({ iteration: 4, history: edits }).canContinue).toBe(true);
    const infra = iterations({ output: RATE_LIMIT }, { output: RATE_LIMIT }, { output: RATE_LIMIT });
    expect(guards.check({ iteration: 4, history: infra })).toEqual({
      canContinue: true,
      infrastructureError: 'rate_limit',
    });
    expect(guards.check({ iteration: 4, history: iterations({}, {}, {}) }).canContinue).toBe(true);
  });

  it('exemptSignatures: legitimate repetition is neither a loop nor a failure', () => {
    const waiting = iterations(
      { output: 'Waiting for deployment 42 (pid 311) after 5s' },
      { output: 'Waiting for deployment 42 (pid 312) after 10s' },
      { output: 'waiting for deployment 42 (pid 313) after 15s' },
    );
    expect(make().guards.check({ iteration: 4, history: waiting }).blockedBy).toBe('repeated_output');
    const key = outputSignature(waiting[0]?.output ?? '').key;
    expect(
      make({ exemptSignatures: [key] }).guards.check({ iteration: 4, history: waiting }).canContinue,
    ).toBe(true);
    expect(
      make({ exemptSignatures: [/^text:waiting for deployment/] }).guards.check({
        iteration: 4,
        history: waiting,
      }).canContinue,
    ).toBe(true);
    const failures = iterations(
      { passed: false, output: 'Error: still polling' },
      { passed: false, output: 'Error: still polling' },
      { passed: false, output: 'Error: still polling' },
    );
    expect(
      make({ exemptSignatures: ['Error: still polling'] }).guards.check({ iteration: 4, history: failures })
        .canContinue,
    ).toBe(true);
  });

  it('quality regression: declining scores (with the consecutive failure limit raised)', () => {
    const { guards } = make({ consecutiveFailureLimit: 5 });
    const history = iterations({ passed: true }, { passed: false }, { passed: false }, { passed: false });
    expect(guards.check({ iteration: 5, history })).toMatchObject({
      blockedBy: 'quality_regression',
      message:
        'Quality regression detected: Validation scores declined 2 consecutive times. Consider changing approach.',
      evidence: { consecutiveDeclines: 2, decliningIterations: 3, window: 3 },
    });
    const numeric = iterations({ score: 0.9 }, { score: 0.8 }, { score: 0.7 }, { score: 0.6 });
    expect(make().guards.check({ iteration: 5, history: numeric }).blockedBy).toBe('quality_regression');
  });

  it('thrashing: flags and filesModified count; thrashingThreshold changes behaviour', () => {
    const history = iterations(
      { flags: [{ message: 'Error in file: /src/api.ts' }] },
      { filesModified: ['/src/api.ts'] },
      { filesModified: ['/src/api.ts', '/src/b.ts'] },
    );
    expect(make().guards.check({ iteration: 4, history }).canContinue).toBe(true);
    expect(make({ thrashingThreshold: 3 }).guards.check({ iteration: 4, history })).toMatchObject({
      blockedBy: 'thrashing',
      message: 'Thrashing detected: 1 file(s) modified 3+ times without progress: /src/api.ts',
      evidence: { affectedFiles: ['/src/api.ts'], threshold: 3 },
    });
  });
});

describe('GuardSet configuration and input errors', () => {
  it('rejects the caps, the loop threshold and unknown options as ConfigurationError', () => {
    expect(() => new GuardSet({ maxIterations: 51 })).toThrow(ConfigurationError);
    expect(() => new GuardSet({ maxIterations: 51 })).toThrow(/"maxIterations" cannot exceed the cap of 50/);
    expect(() => new GuardSet({ maxRuntimeMinutes: 61 })).toThrow(/cap of 60 minutes/);
    expect(() => new GuardSet({ loopThreshold: 4 })).toThrow(
      /"loopThreshold" is fixed at 3 and cannot be overridden/,
    );
    expect(() => new GuardSet({ loopThreshold: 3 })).not.toThrow();
    expect(() => new GuardSet({ maxIteration: 5 } as never)).toThrow(ConfigurationError);
    expect(() => new GuardSet({ exemptSignatures: [''] })).toThrow(/must not be empty/);
  });

  it('rejects malformed input as InvalidInputError without emitting', () => {
    const { guards, triggers } = make();
    expect(() => guards.check({ iteration: -1, history: [] })).toThrow(InvalidInputError);
    expect(() => guards.check({ iteration: 1, history: [{ iteration: 1, score: 2 }] })).toThrow(
      /GuardSet.check input: "history.0.score"/,
    );
    expect(() => guards.check(null as never)).toThrow(InvalidInputError);
    expect(triggers).toEqual([]);
  });

  it('keeps checking when a guardTriggered listener throws', () => {
    const { guards } = make({ maxIterations: 1 });
    guards.on('guardTriggered', () => {
      throw new Error('listener bug');
    });
    expect(guards.check({ iteration: 2, history: [] }).blockedBy).toBe('max_iterations');
  });
});
