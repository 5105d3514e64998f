import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decide,
  formatDecisionYaml,
  type IterationCheck,
  parseIterationCheckYaml,
} from '../../src/entries/iteration.js';
import { LoopGuardError } from '../../src/index.js';

const output = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '--- FAIL: TestA (0.00s)',
    'Expected: 4\nReceived: 3',
    'E       assert 3 == 4',
    'TypeError: x',
  ),
);
const testResult = fc.record(
  { status: fc.constantFrom('pass' as const, 'fail' as const), output },
  { requiredKeys: ['status'] },
);
const reviewResult = fc.record(
  {
    status: fc.constantFrom('approve' as const, 'reject' as const, 'pending' as const),
    feedback: fc.string(),
  },
  { requiredKeys: ['status'] },
);
const check: fc.Arbitrary<IterationCheck> = fc.record({
  task_id: fc.string({ minLength: 1 }),
  current_iteration: fc.nat(6),
  max_iterations: fc.integer({ min: 1, max: 5 }),
  test_result: testResult,
  review_result: reviewResult,
  previous_attempts: fc.array(
    fc.record({ iteration: fc.nat(5), test_result: testResult, review_result: reviewResult }),
    { maxLength: 3 },
  ),
});

describe('decide properties', () => {
  it('never throws on well-formed input, respects the feedback cap, and its YAML round-trips', () => {
    fc.assert(
      fc.property(check, fc.integer({ min: 40, max: 600 }), (input, max) => {
        const decision = decide(input, { feedback_max_length: max });
        if (decision.action === 'retry') {
          const { summary, actionable_items } = decision.feedback;
          expect(summary.length + actionable_items.join('').length).toBeLessThanOrEqual(max);
          expect(decision.iteration).toBe(input.current_iteration + 1);
        }
        expect(formatDecisionYaml(decision)).toMatch(/^decision:\n {2}action: "(proceed|retry|escalate)"/);
      }),
    );
  });

  it('rejects malformed input and YAML with a LoopGuardError', () => {
    const bad = fc.constantFrom<unknown>(null, {}, { task_id: 'x' }, 'text', {
      task_id: 'x',
      current_iteration: -1,
    });
    fc.assert(
      fc.property(bad, (input) => {
        expect(() => decide(input as never)).toThrow(LoopGuardError);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          parseIterationCheckYaml(text);
        } catch (error) {
          expect(error).toBeInstanceOf(LoopGuardError);
        }
      }),
    );
  });
});
