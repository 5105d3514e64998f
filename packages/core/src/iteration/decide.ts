import { type AttemptPattern, detectPattern } from './detectPattern.js';
import { type AttemptRecord, type IterationCheck, parseIterationCheck } from './iterationCheck.js';
import { type IterationControlOptions, resolveIterationControlOptions } from './iterationControlOptions.js';
import { reviewItems } from './reviewFindings.js';
import { describeFailure, type Feedback, synthesizeFeedback } from './synthesizeFeedback.js';
import { testFindings } from './testFindings.js';

/** Seed 004's decision: proceed, retry with feedback, or escalate with a question. */
export type IterationDecision =
  | {
      /** The validation passed: go on to the next task. */
      action: 'proceed';
      /** The task validated. */
      task_id: string;
      /** `Validation passed. Proceeding to next task.` */
      message: string;
    }
  | {
      /** Run the task again with the feedback. */
      action: 'retry';
      /** The task validated. */
      task_id: string;
      /** The iteration to run next (`current_iteration + 1`). */
      iteration: number;
      /** What to fix. */
      feedback: Feedback;
    }
  | {
      /** Stop iterating and ask a human (attempts or the same failure exhausted). */
      action: 'escalate';
      /** The task validated. */
      task_id: string;
      /** The iteration that escalated. */
      iteration: number;
      /** What the human reads: the attempts, the pattern across them, the diff. */
      context: {
        /** One line per attempt: `Iteration 1: Test failed - …`. */
        attempts_summary: string;
        /** The pattern across attempts, `null` when none stands out. */
        pattern_detected: string | null;
        /** The change under validation, when given and `escalation_includes_diff`. */
        diff?: string;
      };
      /** The specific question for the user, with numbered options. */
      question: string;
    };

/** Why an escalation happened. */
type EscalationReason = 'max_iterations' | 'test_retry_disabled' | 'review_retry_disabled' | 'review_pending';

/**
 * Seed 004's iteration control. Proceeds when tests pass and the review approves; escalates when
 * `current_iteration >= max_iterations`; otherwise retries with feedback synthesised from the test
 * output (test failure) or the review (rejection). A disabled `auto_retry_on_*` option turns that
 * retry into an escalation; tests passing with the review still pending escalate too (nothing to fix,
 * nothing approved).
 *
 * @param input - seed 004's `iteration_check`, optionally with `previous_attempts` and `diff`.
 * @param options - seed 004's `iteration_control` configuration.
 * @throws InvalidInputError when `input` is malformed; ConfigurationError when `options` are.
 * @example
 * decide({ task_id: 'task-003', current_iteration: 2, max_iterations: 3,
 *   test_result: { status: 'fail', output: 'FAIL src/auth/login.test.ts\nExpected: token to contain userId\nReceived: undefined' },
 *   review_result: { status: 'pending', feedback: '' } });
 * // { action: 'retry', task_id: 'task-003', iteration: 3, feedback: { summary: 'Test failed: expected token to contain userId, received undefined', ... } }
 */
export function decide(input: IterationCheck, options: IterationControlOptions = {}): IterationDecision {
  const check = parseIterationCheck(input);
  const config = resolveIterationControlOptions(options);
  const { task_id, test_result, review_result } = check;
  if (test_result.status === 'pass' && review_result.status === 'approve') {
    return { action: 'proceed', task_id, message: 'Validation passed. Proceeding to next task.' };
  }
  const max = check.max_iterations ?? config.max_iterations;
  const escalation = (reason: EscalationReason) =>
    escalate(check, max, reason, config.escalation_includes_diff);
  if (check.current_iteration >= max) return escalation('max_iterations');
  const retry = (): IterationDecision => ({
    action: 'retry',
    task_id,
    iteration: check.current_iteration + 1,
    feedback: synthesizeFeedback(test_result, review_result, config.feedback_max_length),
  });
  if (test_result.status === 'fail')
    return config.auto_retry_on_test_fail ? retry() : escalation('test_retry_disabled');
  if (review_result.status === 'reject') {
    return config.auto_retry_on_review_reject ? retry() : escalation('review_retry_disabled');
  }
  return escalation('review_pending');
}

function escalate(
  check: IterationCheck,
  max: number,
  reason: EscalationReason,
  includeDiff: boolean,
): IterationDecision {
  const attempts: AttemptRecord[] = [
    ...(check.previous_attempts ?? []),
    {
      iteration: check.current_iteration,
      test_result: check.test_result,
      review_result: check.review_result,
    },
  ];
  const pattern = detectPattern(attempts);
  const context: Extract<IterationDecision, { action: 'escalate' }>['context'] = {
    attempts_summary: `${attempts.map(describeAttempt).join('\n')}\n`,
    pattern_detected: pattern?.description ?? null,
  };
  if (includeDiff && check.diff !== undefined) context.diff = check.diff;
  return {
    action: 'escalate',
    task_id: check.task_id,
    iteration: check.current_iteration,
    context,
    question: questionFor(check, attempts.length, max, reason, pattern),
  };
}

/** `Iteration 2: Test failed - expected 4, received 3`, as in the seed's attempts summary. */
function describeAttempt(attempt: AttemptRecord): string {
  const prefix = `Iteration ${attempt.iteration}: `;
  if (attempt.test_result.status === 'fail') {
    return `${prefix}Test failed - ${describeFailure(testFindings(attempt.test_result.output ?? ''))}`;
  }
  const review = attempt.review_result;
  if (review?.status === 'reject') return `${prefix}Review rejected - ${firstReviewItem(review.feedback)}`;
  if (review?.status === 'pending') return `${prefix}Tests passed, review pending`;
  return `${prefix}Tests passed, review approved`;
}

function firstReviewItem(feedback: string | undefined): string {
  return reviewItems(feedback ?? '')[0]?.text ?? 'no feedback given';
}

function questionFor(
  check: IterationCheck,
  attempts: number,
  max: number,
  reason: EscalationReason,
  pattern: AttemptPattern | null,
): string {
  const findings = testFindings(check.test_result.output ?? '');
  if (reason === 'review_pending') {
    return lines(
      `Tests pass for ${check.task_id}, but the review is still pending at iteration ${check.current_iteration} of ${max}.`,
      '',
      'How should we continue?',
      '1. Approve and proceed to the next task',
      '2. Reject with feedback for another iteration',
    );
  }
  if (reason === 'test_retry_disabled' || reason === 'review_retry_disabled') {
    const what =
      reason === 'test_retry_disabled'
        ? `the test failed (${describeFailure(findings)})`
        : `the review rejected the change (${firstReviewItem(check.review_result.feedback)})`;
    return lines(
      `At iteration ${check.current_iteration} of ${max}, ${what}, and automatic retry is disabled.`,
      '',
      'How should we continue?',
      '1. Retry with the synthesized feedback',
      '2. Give different guidance for the next attempt',
      '3. Stop the task',
    );
  }
  if (pattern?.kind === 'alternating') {
    const [a, b] = pattern.subjects;
    return lines(
      `After ${attempts} attempts, fixing ${a} breaks ${b} and fixing ${b} breaks ${a}.`,
      '',
      'Which behaviour is required?',
      `1. The one ${a} expects`,
      `2. The one ${b} expects`,
      '3. Both: the requirements need to be reconciled first',
    );
  }
  if (check.test_result.status === 'fail') {
    const subject = pattern?.kind === 'same_test' ? (pattern.subjects[0] ?? 'the test') : 'the test';
    const values =
      findings.expected !== null && findings.received !== null
        ? ['', `The test expects: ${findings.expected}`, `The code produces: ${findings.received}`]
        : [];
    return lines(
      `After ${attempts} attempts, ${subject} still fails: ${describeFailure(findings)}.`,
      ...values,
      '',
      'Which should change?',
      '1. The implementation (make it produce what the test expects)',
      '2. The test (its expectation is wrong)',
      '3. Neither yet: give guidance for another attempt',
    );
  }
  return lines(
    `After ${attempts} attempts, the review still rejects the change: ${firstReviewItem(check.review_result.feedback)}`,
    '',
    'How should this be resolved?',
    '1. Give guidance for another attempt',
    '2. Override the review and proceed',
    '3. Stop the task',
  );
}

function lines(...parts: string[]): string {
  return `${parts.join('\n')}\n`;
}
