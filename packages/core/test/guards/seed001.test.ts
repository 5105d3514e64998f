import { describe, expect, it } from 'vitest';
import {
  checkSafetyGuards,
  DEFAULT_CONFIG,
  escalationReportFor,
  extendBudget,
  formatEscalationReport,
} from '../../src/entries/seeds.js';
import { countConsecutiveErrors, detectRepeatedOutput } from '../../src/guards/detectRepeatedOutput.js';
import { summarizeOutput } from '../../src/guards/escalationReport.js';
import { resolveSafetyConfig } from '../../src/guards/safetyConfig.js';
import { ConfigurationError, InvalidInputError, ManualClock } from '../../src/index.js';

const MINUTE = 60_000;
const START = 1_760_825_000_000;
const clockAt = (minutes: number) => new ManualClock(START + minutes * MINUTE);

describe('DEFAULT_CONFIG and overrides (seed 001)', () => {
  it("has the seed's defaults", () => {
    expect(DEFAULT_CONFIG).toEqual({
      max_iterations: 10,
      max_runtime_minutes: 15,
      consecutive_error_limit: 3,
      loop_threshold: 3,
    });
    expect(Object.isFrozen(DEFAULT_CONFIG)).toBe(true);
  });

  it("applies the seed's per-task override", () => {
    expect(resolveSafetyConfig({ max_iterations: 15, max_runtime_minutes: 30 })).toEqual({
      ...DEFAULT_CONFIG,
      max_iterations: 15,
      max_runtime_minutes: 30,
    });
  });

  it('refuses to pass the caps or change loop_threshold, with clear errors', () => {
    expect(() => resolveSafetyConfig({ max_iterations: 51 })).toThrow(ConfigurationError);
    expect(() => resolveSafetyConfig({ max_iterations: 51 })).toThrow(
      'SafetyConfig: "max_iterations" cannot exceed the cap of 50 (got number 51)',
    );
    expect(() => resolveSafetyConfig({ max_runtime_minutes: 61 })).toThrow(
      'SafetyConfig: "max_runtime_minutes" cannot exceed the cap of 60 minutes (got number 61)',
    );
    expect(() => resolveSafetyConfig({ loop_threshold: 2 })).toThrow(
      'SafetyConfig: "loop_threshold" is fixed at 3 and cannot be overridden (got number 2)',
    );
    expect(() =>
      resolveSafetyConfig({ max_iterations: 50, max_runtime_minutes: 60, loop_threshold: 3 }),
    ).not.toThrow();
  });
});

describe('checkSafetyGuards (seed 001)', () => {
  const safe = (
    iteration: number,
    minutes = 0,
    errors = 0,
    outputs: string[] = [],
    config = DEFAULT_CONFIG,
  ) => checkSafetyGuards(iteration, new Date(START), errors, outputs, config, clockAt(minutes));

  it('is safe below every limit', () => {
    expect(safe(9, 14.9, 2, ['a', 'b', 'c'])).toEqual({ safe: true });
  });

  it('counts finished iterations: iteration >= max_iterations is unsafe', () => {
    expect(safe(10)).toEqual({
      safe: false,
      reason: 'max_iterations (10) exceeded',
      guard: 'max_iterations',
    });
    expect(safe(14, 0, 0, [], { ...DEFAULT_CONFIG, max_iterations: 15 }).safe).toBe(true);
  });

  it('stops at max_runtime_minutes on the injected clock, accepting epoch ms', () => {
    expect(safe(1, 15)).toEqual({
      safe: false,
      reason: 'max_runtime (15min) exceeded',
      guard: 'max_runtime',
    });
    expect(
      checkSafetyGuards(1, START, 0, [], { ...DEFAULT_CONFIG, max_runtime_minutes: 30 }, clockAt(20)).safe,
    ).toBe(true);
  });

  it('stops at consecutive_error_limit', () => {
    expect(safe(1, 0, 3)).toEqual({
      safe: false,
      reason: 'consecutive_error_limit (3) exceeded',
      guard: 'consecutive_errors',
    });
    expect(safe(1, 0, 3, [], { ...DEFAULT_CONFIG, consecutive_error_limit: 5 }).safe).toBe(true);
  });

  it('detects a loop of the same output signature', () => {
    const outputs = [
      'TypeError: x at src/a.ts:3:1 (4ms)',
      'TypeError: x at src/a.ts:9:9 (7ms)',
      'TypeError: x at src/a.ts:1:1',
    ];
    expect(safe(3, 0, 0, outputs)).toEqual({
      safe: false,
      reason: 'Loop detected - same output repeated',
      guard: 'loop_detection',
    });
  });

  it('checks in the seed order: iterations, runtime, loop detection, consecutive errors', () => {
    const loop = ['same', 'same', 'same'];
    expect(safe(10, 15, 3, loop).guard).toBe('max_iterations');
    expect(safe(1, 15, 3, loop).guard).toBe('max_runtime');
    expect(safe(1, 0, 3, loop).guard).toBe('loop_detection');
  });

  it('rejects malformed arguments and configs', () => {
    expect(() => safe(-1)).toThrow(/iteration must be an integer ≥ 0/);
    expect(() => checkSafetyGuards(1, new Date(Number.NaN), 0, [], DEFAULT_CONFIG)).toThrow(/startTime/);
    expect(() => checkSafetyGuards(1, START, 0, [1] as never, DEFAULT_CONFIG)).toThrow(InvalidInputError);
    expect(() => safe(1, 0, 0, [], { ...DEFAULT_CONFIG, loop_threshold: 5 })).toThrow(ConfigurationError);
    expect(() => safe(1, 0, 0, [], { ...DEFAULT_CONFIG, max_iterations: 100 })).toThrow(/cap of 50/);
  });
});

describe('detectRepeatedOutput (seed 001 loop detection) and countConsecutiveErrors', () => {
  it('compares signatures, not raw text', () => {
    expect(
      detectRepeatedOutput(['Edited src/a.ts (12ms)', 'Edited src/a.ts (30ms)', 'edited src/a.ts']),
    ).toBe(true);
    expect(detectRepeatedOutput(['Edited src/a.ts', 'Edited src/b.ts', 'Edited src/a.ts'])).toBe(false);
    expect(detectRepeatedOutput(['same', 'same'])).toBe(false);
  });

  it('leaves out infrastructure errors and exempt signatures', () => {
    expect(detectRepeatedOutput(['read ECONNRESET', 'read ECONNRESET', 'read ECONNRESET'])).toBe(false);
    expect(detectRepeatedOutput(['same', '503 Service Unavailable', 'same', 'same'])).toBe(true);
    expect(detectRepeatedOutput(['polling job', 'polling job', 'polling job'], [/^text:polling/])).toBe(
      false,
    );
  });

  it('counts errors in a row, skipping infrastructure errors', () => {
    const outputs = ['ok', 'Error: boom', 'HTTP 429 Too Many Requests', 'Error: boom'];
    expect(countConsecutiveErrors(outputs)).toBe(2);
    expect(countConsecutiveErrors(['Error: a', 'Error: b'])).toBe(1);
    expect(countConsecutiveErrors(['Error: a', 'Error: b'], { sameSignature: false })).toBe(2);
    expect(countConsecutiveErrors(['Error: a', 'all good'])).toBe(0);
  });
});

describe('escalation report (seed 001)', () => {
  it("renders the seed's markdown", () => {
    const report = formatEscalationReport({
      guardName: 'max_iterations',
      iteration: 10,
      maxIterations: 10,
      elapsedMinutes: 7.46,
      maxRuntimeMinutes: 15,
      consecutiveErrors: 2,
      lastOutput: 'FAIL  src/a.test.ts > adds\nAssertionError: expected 3 to be 4',
      additionalIterations: 5,
    });
    expect(report).toBe(
      [
        '## Guard Triggered: max_iterations',
        '',
        '**Iteration**: 10 of 10',
        '**Runtime**: 7.5 of 15 minutes',
        '**Consecutive errors**: 2',
        '',
        '**Last output summary**:',
        'FAIL src/a.test.ts > adds (AssertionError) — failing tests: src/a.test.ts > adds',
        '',
        '**Options**:',
        '1. Continue with 5 more iterations',
        '2. Accept current state',
        '3. Review iteration history',
        '4. Cancel task',
        '',
      ].join('\n'),
    );
  });

  it('builds the report from a guard check, limiting N to the cap', () => {
    const config = resolveSafetyConfig({ max_iterations: 48 });
    const report = escalationReportFor('loop_detection', {
      iteration: 48,
      startTime: START,
      consecutiveErrors: 0,
      recentOutputs: ['first', '\u001b[33mwaiting\u001b[0m'],
      config,
      clock: clockAt(3),
    });
    expect(report).toContain('## Guard Triggered: loop_detection');
    expect(report).toContain('**Iteration**: 48 of 48');
    expect(report).toContain('**Runtime**: 3 of 15 minutes');
    expect(report).toContain('**Last output summary**:\nwaiting\n');
    expect(report).toContain('1. Continue with 2 more iterations');
    const atCap = escalationReportFor('max_iterations', {
      iteration: 50,
      startTime: START,
      consecutiveErrors: 0,
      recentOutputs: [],
      config: resolveSafetyConfig({ max_iterations: 50 }),
      clock: clockAt(1),
    });
    expect(atCap).toContain('1. Continue with more iterations (not available: max_iterations is at its cap)');
    expect(atCap).toContain('(no output)');
  });

  it('summarises infrastructure errors and truncates long output', () => {
    expect(summarizeOutput('Error: 429 Too Many Requests')).toBe(
      'Infrastructure error (rate_limit): Error: 429 Too Many Requests',
    );
    expect(summarizeOutput('x'.repeat(500), 20)).toHaveLength(20);
  });
});

describe('extendBudget: "continue with N more iterations"', () => {
  it('adds iterations and runtime', () => {
    expect(extendBudget(DEFAULT_CONFIG, { iterations: 5 })).toEqual({
      ...DEFAULT_CONFIG,
      max_iterations: 15,
    });
    expect(extendBudget(DEFAULT_CONFIG, { iterations: 5, runtimeMinutes: 10 })).toMatchObject({
      max_iterations: 15,
      max_runtime_minutes: 25,
    });
    expect(DEFAULT_CONFIG.max_iterations).toBe(10);
  });

  it('respects the caps', () => {
    expect(extendBudget(DEFAULT_CONFIG, { iterations: 40 }).max_iterations).toBe(50);
    expect(() => extendBudget(DEFAULT_CONFIG, { iterations: 41 })).toThrow(
      'cannot continue with 41 more iterations: max_iterations would be 51, above the cap of 50 (at most 40 more)',
    );
    expect(() => extendBudget(DEFAULT_CONFIG, { iterations: 1, runtimeMinutes: 46 })).toThrow(
      ConfigurationError,
    );
    expect(() => extendBudget(DEFAULT_CONFIG, { iterations: 0 })).toThrow(InvalidInputError);
    expect(() => extendBudget(DEFAULT_CONFIG, { iterations: 1, runtimeMinutes: -1 })).toThrow(
      /runtimeMinutes/,
    );
  });
});

describe('checkSafetyGuards: a bad clock and changing arrays', () => {
  it('a null clock or one without now() is an InvalidInputError naming the clock', () => {
    expect(() => checkSafetyGuards(1, START, 0, [], DEFAULT_CONFIG, null as never)).toThrow(
      new InvalidInputError('clock must have a now() method, got null'),
    );
    expect(() => checkSafetyGuards(1, START, 0, [], DEFAULT_CONFIG, {} as never)).toThrow(
      'clock must have a now() method, got an object',
    );
  });

  it('a clock whose now() returns NaN or a string is a ConfigurationError naming the clock', () => {
    const nan = { now: () => Number.NaN };
    const text = { now: () => '2026-01-01' as unknown as number };
    expect(() => checkSafetyGuards(1, START, 0, [], DEFAULT_CONFIG, nan)).toThrow(ConfigurationError);
    expect(() => checkSafetyGuards(1, START, 0, [], DEFAULT_CONFIG, nan)).toThrow(
      'clock.now() must return finite epoch milliseconds, got number NaN',
    );
    expect(() => checkSafetyGuards(1, START, 0, [], DEFAULT_CONFIG, text)).toThrow(
      'clock.now() must return finite epoch milliseconds, got "2026-01-01"',
    );
  });

  it('judges the copy of recentOutputs it validated, reading each element once', () => {
    let reads = 0;
    const outputs = new Proxy(['same', 'same', 'same'], {
      get(target, key, receiver) {
        if (key === '2') return reads++ === 0 ? 'same' : 42;
        return Reflect.get(target, key, receiver);
      },
    });
    const result = checkSafetyGuards(1, START, 0, outputs, DEFAULT_CONFIG, clockAt(1));
    expect(result).toMatchObject({ safe: false, guard: 'loop_detection' });
    expect(reads).toBe(1);
  });
});
