import { describe, expect, it } from 'vitest';
import {
  checkCircuitBreaker,
  checkMaxIterations,
  checkQualityRegression,
  checkThrashing,
  type IterationConfig,
  type IterationHistoryEntry,
  runSafetyChecks,
} from '../../src/entries/seeds.js';
import { ConfigurationError, InvalidInputError } from '../../src/index.js';

const passes = (...results: boolean[]): IterationHistoryEntry[] =>
  results.map((passed, i) => ({ iteration: i + 1, validationResult: { passed } }));
const scored = (...scores: number[]): IterationHistoryEntry[] =>
  scores.map((score, i) => ({ iteration: i + 1, validationResult: { score } }));
const flagged = (...messages: string[][]): IterationHistoryEntry[] =>
  messages.map((list, i) => ({
    iteration: i + 1,
    validationResult: { flags: list.map((message) => ({ message })) },
  }));
const config: IterationConfig = {
  maxIterations: 10,
  completionPromises: ['All tests pass'],
  circuitBreakerThreshold: 3,
};

describe('checkMaxIterations (seed 000, 1-based)', () => {
  it('allows iterations within the limit and at the limit', () => {
    expect(checkMaxIterations(1, 10)).toEqual({ allowed: true });
    expect(checkMaxIterations(10, 10)).toEqual({ allowed: true });
  });

  it("blocks beyond the limit with the seed's message", () => {
    expect(checkMaxIterations(11, 10)).toEqual({
      allowed: false,
      message: 'Iteration 11 exceeds maximum of 10. Circuit breaker triggered.',
    });
    expect(checkMaxIterations(6, 5).message).toBe(
      'Iteration 6 exceeds maximum of 5. Circuit breaker triggered.',
    );
  });

  it('rejects non-integer arguments naming them', () => {
    expect(() => checkMaxIterations(1.5, 10)).toThrow(/currentIteration must be an integer/);
    expect(() => checkMaxIterations(1, 0)).toThrow(InvalidInputError);
    expect(() => checkMaxIterations(1, Number.NaN)).toThrow(/maxIterations/);
  });
});

describe('checkCircuitBreaker (seed 000)', () => {
  it('is closed with no history and with all passing', () => {
    expect(checkCircuitBreaker([])).toEqual({ open: false, consecutiveFailures: 0 });
    expect(checkCircuitBreaker(passes(true, true))).toEqual({ open: false, consecutiveFailures: 0 });
  });

  it("opens on the seed's example with the seed's message", () => {
    expect(checkCircuitBreaker(passes(false, false, false), 3)).toEqual({
      open: true,
      consecutiveFailures: 3,
      message:
        'Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3). Manual intervention required.',
    });
  });

  it('resets the count on a pass (streak broken)', () => {
    expect(checkCircuitBreaker(passes(false, false, true, false, false))).toEqual({
      open: false,
      consecutiveFailures: 2,
    });
  });

  it('defaults the threshold to 3, and the threshold changes behaviour', () => {
    expect(checkCircuitBreaker(passes(false, false)).open).toBe(false);
    expect(checkCircuitBreaker(passes(false, false), 2).open).toBe(true);
    expect(checkCircuitBreaker(passes(false, false, false), 4).open).toBe(false);
  });

  it('rejects a malformed history and threshold', () => {
    expect(() => checkCircuitBreaker('nope' as never)).toThrow(/iterationHistory must be an array/);
    expect(() => checkCircuitBreaker([{ iteration: 1 }] as never)).toThrow(InvalidInputError);
    expect(() => checkCircuitBreaker([], 0)).toThrow(/threshold must be an integer ≥ 1/);
  });
});

describe('checkQualityRegression (seed 000; the regression rule of docs/decisions.md)', () => {
  it("reports the seed's example pass, fail, fail, fail as a regression with the seed's output", () => {
    expect(checkQualityRegression(passes(true, false, false, false))).toEqual({
      regression: true,
      consecutiveDeclines: 2,
      decliningIterations: 3,
      message:
        'Quality regression detected: Validation scores declined 2 consecutive times. Consider changing approach.',
    });
  });

  it('needs enough data: three iterations cannot regress', () => {
    expect(checkQualityRegression([]).regression).toBe(false);
    expect(checkQualityRegression(passes(true, false, false)).regression).toBe(false);
  });

  it('does not regress when quality never dropped from a best', () => {
    expect(checkQualityRegression(passes(false, false, false, false)).regression).toBe(false);
    expect(checkQualityRegression(scored(0.2, 0.4, 0.6, 0.8)).regression).toBe(false);
  });

  it('fires on declining numeric scores', () => {
    const result = checkQualityRegression(scored(0.9, 0.8, 0.7, 0.6));
    expect(result).toMatchObject({ regression: true, consecutiveDeclines: 2, decliningIterations: 3 });
  });

  it('counts every further decline', () => {
    expect(checkQualityRegression(scored(1, 0.8, 0.6, 0.4, 0.2)).message).toBe(
      'Quality regression detected: Validation scores declined 3 consecutive times. Consider changing approach.',
    );
  });

  it('resets when quality recovers', () => {
    expect(checkQualityRegression(passes(true, false, false, true)).regression).toBe(false);
    expect(checkQualityRegression(scored(0.9, 0.5, 0.4, 0.45)).regression).toBe(false);
  });

  it('prefers score to passed and skips entries with neither', () => {
    const history: IterationHistoryEntry[] = [
      { iteration: 1, validationResult: { passed: false, score: 0.9 } },
      { iteration: 2, validationResult: { passed: false, score: 0.7 } },
      { iteration: 3, validationResult: {} },
      { iteration: 4, validationResult: { passed: false, score: 0.7 } },
      { iteration: 5, validationResult: { passed: false, score: 0.5 } },
    ];
    expect(checkQualityRegression(history).regression).toBe(true);
  });

  it('rejects scores outside 0..1', () => {
    expect(() => checkQualityRegression(scored(1.5))).toThrow(/iterationHistory: "0.validationResult.score"/);
  });
});

describe('checkThrashing (seed 000)', () => {
  const api = Array.from({ length: 5 }, () => ['Error in file: /src/api.ts']);

  it("detects the seed's example with the seed's message", () => {
    expect(checkThrashing(flagged(...api), 5)).toEqual({
      thrashing: true,
      affectedFiles: ['/src/api.ts'],
      message: 'Thrashing detected: 1 file(s) modified 5+ times without progress: /src/api.ts',
    });
  });

  it('needs the threshold of iterations', () => {
    expect(checkThrashing(flagged(...api.slice(0, 4)))).toEqual({ thrashing: false, affectedFiles: [] });
  });

  it('does not flag different files', () => {
    const history = flagged(...[1, 2, 3, 4, 5].map((i) => [`Error in file: /src/f${i}.ts`]));
    expect(checkThrashing(history).thrashing).toBe(false);
  });

  it('matches case-insensitively and finds several files per message', () => {
    const history = flagged(...Array.from({ length: 3 }, () => ['Lint in FILE: /a.ts, and File: /b.ts.']));
    expect(checkThrashing(history, 3)).toMatchObject({ thrashing: true, affectedFiles: ['/a.ts', '/b.ts'] });
    expect(checkThrashing(history, 3).message).toBe(
      'Thrashing detected: 2 file(s) modified 3+ times without progress: /a.ts, /b.ts',
    );
  });

  it('counts a file once per iteration', () => {
    const history = flagged(['file: /a.ts', 'file: /a.ts'], ['file: /a.ts']);
    expect(checkThrashing(history, 3).thrashing).toBe(false);
  });

  it('honours a custom threshold', () => {
    expect(checkThrashing(flagged(...api.slice(0, 2)), 2).thrashing).toBe(true);
    expect(checkThrashing(flagged(...api), 6).thrashing).toBe(false);
  });
});

describe('runSafetyChecks (seed 000)', () => {
  it('passes when no guard blocks', () => {
    expect(runSafetyChecks(2, config, passes(true))).toEqual({ canContinue: true });
  });

  it("blocks by max iterations first, as in the seed's example", () => {
    expect(runSafetyChecks(11, config, passes(false, false, false))).toEqual({
      canContinue: false,
      blockedBy: 'max_iterations',
      message: 'Iteration 11 exceeds maximum of 10. Circuit breaker triggered.',
    });
  });

  it('checks the circuit breaker before quality regression', () => {
    expect(runSafetyChecks(5, config, passes(true, false, false, false)).blockedBy).toBe('circuit_breaker');
  });

  it('reports quality regression when the breaker stays closed', () => {
    expect(
      runSafetyChecks(5, { ...config, circuitBreakerThreshold: 4 }, passes(true, false, false, false)),
    ).toEqual({
      canContinue: false,
      blockedBy: 'quality_regression',
      message:
        'Quality regression detected: Validation scores declined 2 consecutive times. Consider changing approach.',
    });
  });

  it('reports thrashing last', () => {
    const history = flagged(...Array.from({ length: 5 }, () => ['Error in file: /src/api.ts']));
    expect(runSafetyChecks(6, config, history)).toMatchObject({ canContinue: false, blockedBy: 'thrashing' });
  });

  it('reads circuitBreakerThreshold, defaulting to 3', () => {
    const { circuitBreakerThreshold: _, ...defaults } = config;
    expect(runSafetyChecks(4, defaults, passes(false, false, false)).blockedBy).toBe('circuit_breaker');
    expect(
      runSafetyChecks(4, { ...config, circuitBreakerThreshold: 5 }, passes(false, false, false)).canContinue,
    ).toBe(true);
  });

  it('rejects a malformed config as a ConfigurationError and a malformed history as InvalidInputError', () => {
    expect(() => runSafetyChecks(1, { ...config, maxIterations: 0 }, [])).toThrow(ConfigurationError);
    expect(() => runSafetyChecks(1, { completionPromises: [] } as never, [])).toThrow(/maxIterations/);
    expect(() => runSafetyChecks(1, config, null as never)).toThrow(/history must be an array/);
  });
});
