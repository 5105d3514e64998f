import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorSignature } from '../../src/entries/breaker.js';
import { GuardSet } from '../../src/entries/guards.js';
import {
  checkCircuitBreaker,
  checkMaxIterations,
  checkQualityRegression,
  checkSafetyGuards,
  checkThrashing,
  DEFAULT_CONFIG,
  type IterationHistoryEntry,
  runSafetyChecks,
} from '../../src/entries/seeds.js';
import { LoopGuardError, ManualClock } from '../../src/index.js';
import { outputSignature } from '../../src/signatures/outputSignature.js';

const output = fc.oneof(
  fc.string(),
  fc.constantFrom(
    'FAIL  src/a.test.ts > adds',
    '--- FAIL: TestAdd (0.00s)',
    'Error: 429 Too Many Requests',
    'read ECONNRESET',
    'TypeError: x\n    at f (/app/a.js:1:2)',
    'Edited src/a.ts',
    'Error in file: /src/api.ts',
  ),
);
const flag = fc.record({ message: fc.oneof(fc.string(), fc.constant('Error in file: /src/api.ts')) });
const validationResult = fc.record(
  {
    passed: fc.boolean(),
    score: fc.double({ min: 0, max: 1, noNaN: true }),
    flags: fc.array(flag, { maxLength: 3 }),
  },
  { requiredKeys: [] },
);
const history = fc
  .array(validationResult, { maxLength: 12 })
  .map((results) =>
    results.map((validationResult, i): IterationHistoryEntry => ({ iteration: i + 1, validationResult })),
  );
const guardHistory = fc
  .array(
    fc.record(
      {
        output,
        passed: fc.boolean(),
        score: fc.double({ min: 0, max: 1, noNaN: true }),
        flags: fc.array(flag, { maxLength: 2 }),
        filesModified: fc.array(fc.constantFrom('/a.ts', '/b.ts'), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 12 },
  )
  .map((entries) => entries.map((entry, i) => ({ iteration: i + 1, ...entry })));

describe('guards never throw on well-formed input', () => {
  it('seed 000 functions and runSafetyChecks', () => {
    fc.assert(
      fc.property(
        history,
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 20 }),
        (h, iteration, threshold) => {
          checkMaxIterations(iteration, threshold);
          checkCircuitBreaker(h, threshold);
          checkThrashing(h, threshold);
          const quality = checkQualityRegression(h);
          expect(quality.consecutiveDeclines).toBe(Math.max(0, quality.decliningIterations - 1));
          const result = runSafetyChecks(iteration, { maxIterations: threshold, completionPromises: [] }, h);
          expect(result.canContinue).toBe(result.blockedBy === undefined);
        },
      ),
    );
  });

  it('GuardSet.check, and it never reorders or changes the history', () => {
    fc.assert(
      fc.property(
        guardHistory,
        fc.integer({ min: 0, max: 60 }),
        fc.nat(40 * 60_000),
        (h, iteration, elapsed) => {
          const frozen = structuredClone(h);
          const result = new GuardSet({ clock: new ManualClock(elapsed) }).check({
            iteration,
            startedAt: 0,
            history: h,
          });
          expect(h).toEqual(frozen);
          expect(typeof result.canContinue).toBe('boolean');
        },
      ),
    );
  });

  it('checkSafetyGuards and the signature functions', () => {
    fc.assert(
      fc.property(fc.array(output, { maxLength: 6 }), fc.nat(20), fc.nat(5), (outputs, iteration, errors) => {
        checkSafetyGuards(iteration, 0, errors, outputs, DEFAULT_CONFIG, new ManualClock(0));
        for (const text of outputs) {
          const signature = errorSignature(text);
          expect(signature.kind === 'none').toBe(signature.signature === '');
          outputSignature(text);
        }
      }),
    );
  });
});

describe('rejected input throws a LoopGuardError', () => {
  const notAHistory = fc.oneof(
    fc.constantFrom(null, undefined, 42, 'history', {}),
    fc.constant([{ iteration: 'one', validationResult: {} }]),
    fc.constant([{ iteration: 1, validationResult: { score: 2 } }]),
    fc.constant([{ iteration: 1, validationResult: { flags: [{ message: 3 }] } }]),
  );
  const notAPositiveInteger = fc.oneof(
    fc.constantFrom(0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY),
    fc.string(),
  );

  it('on histories', () => {
    fc.assert(
      fc.property(notAHistory, (bad) => {
        for (const call of [
          () => checkCircuitBreaker(bad as never),
          () => checkQualityRegression(bad as never),
          () => checkThrashing(bad as never),
          () => runSafetyChecks(1, { maxIterations: 3, completionPromises: [] }, bad as never),
        ]) {
          expect(call).toThrow(LoopGuardError);
        }
      }),
    );
  });

  it('on GuardSet.check input', () => {
    const badEntry = fc.oneof(
      fc.constant({ iteration: 'one' }),
      fc.constant({ iteration: 1, score: 2 }),
      fc.constant({ iteration: 1, output: 42 }),
      fc.constant({ iteration: 1, flags: [{ message: null }] }),
      fc.constant({ iteration: 1, filesModified: '/a.ts' }),
    );
    fc.assert(
      fc.property(badEntry, (entry) => {
        expect(() => new GuardSet().check({ iteration: 1, history: [entry as never] })).toThrow(
          LoopGuardError,
        );
      }),
    );
  });

  it('on limits, thresholds and configurations', () => {
    fc.assert(
      fc.property(notAPositiveInteger, (bad) => {
        expect(() => checkMaxIterations(1, bad as never)).toThrow(LoopGuardError);
        expect(() => checkCircuitBreaker([], bad as never)).toThrow(LoopGuardError);
        expect(() => checkThrashing([], bad as never)).toThrow(LoopGuardError);
        expect(() => new GuardSet({ maxIterations: bad as never })).toThrow(LoopGuardError);
        expect(() =>
          checkSafetyGuards(1, 0, 0, [], { ...DEFAULT_CONFIG, max_iterations: bad as never }),
        ).toThrow(LoopGuardError);
      }),
    );
  });
});
