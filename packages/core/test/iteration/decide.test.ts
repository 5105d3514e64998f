import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  DEFAULT_ITERATION_CONTROL,
  decide,
  formatDecisionYaml,
  type IterationCheck,
  type IterationDecision,
  parseIterationCheckYaml,
  parseIterationControlYaml,
  synthesizeFeedback,
} from '../../src/entries/iteration.js';
import { ConfigurationError, InvalidInputError } from '../../src/index.js';
import { detectPattern } from '../../src/iteration/detectPattern.js';
import { priorityOf, reviewItems } from '../../src/iteration/reviewFindings.js';
import { testFindings } from '../../src/iteration/testFindings.js';

const SEED_INPUT = `iteration_check:
  task_id: "task-003"
  current_iteration: 2
  max_iterations: 3

  test_result:
    status: "fail"  # pass | fail
    output: |
      FAIL src/auth/login.test.ts
      Expected: token to contain userId
      Received: undefined

  review_result:
    status: "pending"  # approve | reject | pending
    feedback: ""
`;
const seedInput = (): IterationCheck => parseIterationCheckYaml(SEED_INPUT);
const vitestFail = (test: string, received: string) =>
  `FAIL  src/auth/login.test.ts > login > ${test}\nAssertionError: expected ${received} to be { userId: 123 }\n ❯ src/auth/login.test.ts:14:25`;
const asEscalation = (decision: IterationDecision) => {
  if (decision.action !== 'escalate') throw new Error(`expected escalate, got ${decision.action}`);
  return decision;
};

describe("decide: the seed's decision logic", () => {
  it('reads the seed YAML input', () => {
    expect(seedInput()).toEqual({
      task_id: 'task-003',
      current_iteration: 2,
      max_iterations: 3,
      test_result: {
        status: 'fail',
        output: 'FAIL src/auth/login.test.ts\nExpected: token to contain userId\nReceived: undefined\n',
      },
      review_result: { status: 'pending', feedback: '' },
    });
  });

  it('proceeds when tests pass and the review approves, with the seed output', () => {
    const decision = decide({
      ...seedInput(),
      test_result: { status: 'pass' },
      review_result: { status: 'approve' },
    });
    expect(formatDecisionYaml(decision)).toBe(
      'decision:\n  action: "proceed"\n  task_id: "task-003"\n  message: "Validation passed. Proceeding to next task."\n',
    );
  });

  it('retries the seed input with feedback from the test output', () => {
    expect(decide(seedInput())).toEqual({
      action: 'retry',
      task_id: 'task-003',
      iteration: 3,
      feedback: {
        summary: 'Test failed: expected token to contain userId, received undefined',
        actionable_items: [
          'Fix src/auth/login.test.ts: expected token to contain userId, received undefined',
        ],
        priority: 'high',
      },
    });
  });

  it('writes the retry in the seed YAML structure', () => {
    expect(parse(formatDecisionYaml(decide(seedInput())))).toEqual({
      decision: {
        action: 'retry',
        task_id: 'task-003',
        iteration: 3,
        feedback: {
          summary: 'Test failed: expected token to contain userId, received undefined',
          actionable_items: [
            'Fix src/auth/login.test.ts: expected token to contain userId, received undefined',
          ],
          priority: 'high',
        },
      },
    });
  });

  it('escalates at current_iteration >= max_iterations with a summary, a pattern and a question', () => {
    const decision = asEscalation(
      decide({
        ...seedInput(),
        current_iteration: 3,
        previous_attempts: [
          {
            iteration: 1,
            test_result: { status: 'fail', output: vitestFail('returns a token', 'undefined') },
          },
          { iteration: 2, test_result: { status: 'fail', output: vitestFail('returns a token', '{}') } },
        ],
        test_result: { status: 'fail', output: vitestFail('returns a token', '{ userId: "123" }') },
      }),
    );
    expect(decision.iteration).toBe(3);
    expect(decision.context.attempts_summary).toBe(
      [
        'Iteration 1: Test failed - expected { userId: 123 }, received undefined',
        'Iteration 2: Test failed - expected { userId: 123 }, received {}',
        'Iteration 3: Test failed - expected { userId: 123 }, received { userId: "123" }',
        '',
      ].join('\n'),
    );
    expect(decision.context.pattern_detected).toBe(
      'Same test failing in every attempt: src/auth/login.test.ts > login > returns a token',
    );
    expect(decision.question).toContain(
      'After 3 attempts, src/auth/login.test.ts > login > returns a token still fails',
    );
    expect(decision.question).toContain(
      'The test expects: { userId: 123 }\nThe code produces: { userId: "123" }',
    );
    expect(decision.question).toContain('Which should change?\n1. The implementation');
    const yaml = formatDecisionYaml(decision);
    expect(yaml).toContain('  context:\n    attempts_summary: |\n      Iteration 1: Test failed');
    expect(yaml).toContain('  question: |\n    After 3 attempts');
    expect(parse(yaml).decision.context.pattern_detected).toBe(decision.context.pattern_detected);
  });

  it('retries on a review rejection with the review items, ordered by priority', () => {
    const decision = decide({
      ...seedInput(),
      test_result: { status: 'pass' },
      review_result: {
        status: 'reject',
        feedback: '- nit: rename tok to token\n- Must verify the JWT signature',
      },
    });
    expect(decision).toEqual({
      action: 'retry',
      task_id: 'task-003',
      iteration: 3,
      feedback: {
        summary: 'Review rejected: nit: rename tok to token',
        actionable_items: ['Must verify the JWT signature', 'nit: rename tok to token'],
        priority: 'high',
      },
    });
  });

  it('escalates when tests pass but the review is pending', () => {
    const decision = asEscalation(decide({ ...seedInput(), test_result: { status: 'pass' } }));
    expect(decision.question).toContain('the review is still pending');
    expect(decision.context.attempts_summary).toBe('Iteration 2: Tests passed, review pending\n');
  });

  it('finds failures alternating between two tests', () => {
    const decision = asEscalation(
      decide({
        ...seedInput(),
        current_iteration: 3,
        previous_attempts: [
          { iteration: 1, test_result: { status: 'fail', output: '--- FAIL: TestA (0.00s)' } },
          { iteration: 2, test_result: { status: 'fail', output: '--- FAIL: TestB (0.00s)' } },
        ],
        test_result: { status: 'fail', output: '--- FAIL: TestA (0.01s)' },
      }),
    );
    expect(decision.context.pattern_detected).toBe(
      'Failures alternate between TestA and TestB: fixing one breaks the other',
    );
    expect(decision.question).toContain('fixing TestA breaks TestB and fixing TestB breaks TestA');
  });
});

describe('iteration_control options change behaviour', () => {
  it('has the seed defaults, read from the seed YAML', () => {
    const yaml = `iteration_control:
  max_iterations: 3
  auto_retry_on_test_fail: true
  auto_retry_on_review_reject: true
  escalation_includes_diff: true
  feedback_max_length: 500
`;
    expect(parseIterationControlYaml(yaml)).toEqual(DEFAULT_ITERATION_CONTROL);
    expect(parseIterationControlYaml('iteration_control:\n  max_iterations: 5\n').max_iterations).toBe(5);
  });

  it('max_iterations: the configured limit applies when the input gives none', () => {
    const { max_iterations: _, ...input } = seedInput();
    expect(decide({ ...input, current_iteration: 3 }).action).toBe('escalate');
    expect(decide({ ...input, current_iteration: 3 }, { max_iterations: 5 }).action).toBe('retry');
    expect(decide({ ...input, current_iteration: 3, max_iterations: 4 }, { max_iterations: 2 }).action).toBe(
      'retry',
    );
  });

  it('auto_retry_on_test_fail: false escalates a test failure', () => {
    const decision = asEscalation(decide(seedInput(), { auto_retry_on_test_fail: false }));
    expect(decision.question).toContain('automatic retry is disabled');
  });

  it('auto_retry_on_review_reject: false escalates a rejection', () => {
    const input = {
      ...seedInput(),
      test_result: { status: 'pass' as const },
      review_result: { status: 'reject' as const, feedback: 'Wrong status code.' },
    };
    expect(decide(input).action).toBe('retry');
    const decision = asEscalation(decide(input, { auto_retry_on_review_reject: false }));
    expect(decision.question).toContain('the review rejected the change (Wrong status code.)');
  });

  it('escalation_includes_diff: includes or leaves out the diff', () => {
    const input = {
      ...seedInput(),
      current_iteration: 3,
      diff: 'diff --git a/src/a.ts b/src/a.ts\n+const x = 1;',
    };
    expect(asEscalation(decide(input)).context.diff).toBe(input.diff);
    expect(formatDecisionYaml(decide(input))).toContain(
      '    diff: |-\n      diff --git a/src/a.ts b/src/a.ts',
    );
    expect(asEscalation(decide(input, { escalation_includes_diff: false })).context).not.toHaveProperty(
      'diff',
    );
  });

  it('feedback_max_length: caps summary and items together', () => {
    const feedback = Array.from({ length: 30 }, (_, i) => `- Must fix issue number ${i} in the handler`).join(
      '\n',
    );
    const input = {
      ...seedInput(),
      test_result: { status: 'pass' as const },
      review_result: { status: 'reject' as const, feedback },
    };
    const size = (d: IterationDecision) =>
      d.action === 'retry' ? d.feedback.summary.length + d.feedback.actionable_items.join('').length : 0;
    const long = decide(input);
    expect(size(long)).toBeLessThanOrEqual(500);
    expect(size(long)).toBeGreaterThan(400);
    const short = decide(input, { feedback_max_length: 120 });
    expect(size(short)).toBeLessThanOrEqual(120);
    expect(short.action === 'retry' && short.feedback.actionable_items.length).toBeLessThan(
      long.action === 'retry' ? long.feedback.actionable_items.length : 0,
    );
  });

  it('rejects invalid options and input', () => {
    expect(() => decide(seedInput(), { feedback_max_length: 10 })).toThrow(ConfigurationError);
    expect(() => decide(seedInput(), { max_iteration: 3 } as never)).toThrow(ConfigurationError);
    expect(() => decide({ ...seedInput(), task_id: '' })).toThrow(
      'iteration_check: "task_id" must be a non-empty string',
    );
    expect(() => decide({ ...seedInput(), test_result: { status: 'broken' } } as never)).toThrow(
      InvalidInputError,
    );
    expect(() => parseIterationCheckYaml('iteration_check: [')).toThrow(/not valid YAML/);
    expect(() => parseIterationCheckYaml('other: 1')).toThrow(/"iteration_check" mapping/);
    expect(() => parseIterationControlYaml('iteration_control:\n  feedback_max_length: "x"')).toThrow(
      ConfigurationError,
    );
  });
});

describe('feedback synthesis from each runner', () => {
  it('jest: expected substring and received string, with file:line', () => {
    const output = `FAIL src/auth/login.test.ts
  ● login › returns a token

    Expected substring: "userId"
    Received string:    "eyJhbGciOi"

      at Object.<anonymous> (src/auth/login.test.ts:13:17)`;
    expect(testFindings(output)).toEqual({
      tests: ['login › returns a token'],
      expected: '"userId"',
      received: '"eyJhbGciOi"',
      message: null,
      location: 'src/auth/login.test.ts:13',
    });
    expect(synthesizeFeedback({ status: 'fail', output }, { status: 'pending' }).actionable_items[0]).toBe(
      'Fix login › returns a token: expected "userId", received "eyJhbGciOi" (at src/auth/login.test.ts:13)',
    );
  });

  it('pytest and go test', () => {
    const pytest =
      'E       assert 3 == 4\n\ntests/test_math.py:5: AssertionError\nFAILED tests/test_math.py::test_add - assert 3 == 4';
    expect(testFindings(pytest)).toMatchObject({
      expected: '4',
      received: '3',
      location: 'tests/test_math.py:5',
    });
    const go = '    math_test.go:12: Add(1, 2) = 3, want 4\n--- FAIL: TestAdd (0.00s)';
    expect(testFindings(go)).toMatchObject({
      tests: ['TestAdd'],
      expected: '4',
      received: '3',
      location: 'math_test.go:12',
    });
  });

  it('an assertion message without values, and tsc errors', () => {
    const node =
      'TypeError: Cannot read properties of undefined (reading "id")\n    at login (src/auth/login.ts:42:7)';
    expect(synthesizeFeedback({ status: 'fail', output: node }, { status: 'pending' })).toEqual({
      summary: 'Test failed: TypeError: Cannot read properties of undefined (reading "id")',
      actionable_items: [
        'Resolve TypeError: Cannot read properties of undefined (reading "id") (at src/auth/login.ts:42)',
      ],
      priority: 'high',
    });
  });

  it('combines a test failure and a rejection, test items first', () => {
    const feedback = synthesizeFeedback(
      { status: 'fail', output: 'Expected: 4\nReceived: 3' },
      { status: 'reject', feedback: 'Consider renaming the helper.' },
    );
    expect(feedback.summary).toBe(
      'Test failed: expected 4, received 3; Review rejected: Consider renaming the helper.',
    );
    expect(feedback.actionable_items).toEqual([
      'Fix the failing test: expected 4, received 3',
      'Consider renaming the helper.',
    ]);
  });

  it('splits and prioritises review feedback', () => {
    expect(reviewItems('The handler leaks the token. Naming is a bit off.')).toEqual([
      { text: 'The handler leaks the token.', priority: 'high' },
      { text: 'Naming is a bit off.', priority: 'low' },
    ]);
    expect(priorityOf('Please add a docstring')).toBe('medium');
  });

  it('detectPattern: none for a single attempt, review rejections, different failures', () => {
    const fail = (output: string) => ({ iteration: 1, test_result: { status: 'fail' as const, output } });
    const reject = {
      iteration: 1,
      test_result: { status: 'pass' as const },
      review_result: { status: 'reject' as const },
    };
    expect(detectPattern([fail('Error: a')])).toBeNull();
    expect(detectPattern([reject, reject])?.kind).toBe('review_rejected');
    expect(detectPattern([fail('Error: a'), fail('Error: b'), fail('Error: c')])?.kind).toBe(
      'different_each_time',
    );
    expect(detectPattern([fail('Error: a at x.ts:1'), fail('Error: a at x.ts:9')])?.description).toBe(
      'Same error in every attempt: Error: a at x.ts:<n>',
    );
  });
});
