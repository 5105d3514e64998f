import { z } from 'zod';
import { parseInput } from '../guards/parseInput.js';

/** A test run's outcome (seed 004). */
export interface TestResult {
  /** `pass` or `fail`. */
  status: 'pass' | 'fail';
  /** What the test runner printed; feedback is synthesised from it. */
  output?: string;
}

/** A review's outcome (seed 004). */
export interface ReviewResult {
  /** `approve`, `reject` or `pending` (not decided yet). */
  status: 'approve' | 'reject' | 'pending';
  /** The reviewer's comments. */
  feedback?: string;
}

/** One earlier attempt at the task, for the escalation's summary and pattern. */
export interface AttemptRecord {
  /** Its iteration number. */
  iteration: number;
  /** Its test result. */
  test_result: TestResult;
  /** Its review result. */
  review_result?: ReviewResult;
}

/**
 * Seed 004's `iteration_check` input, plus two optional fields that the escalation uses:
 * `previous_attempts` (earlier iterations, oldest first) and `diff` (the change under review).
 * @example { task_id: 'task-003', current_iteration: 2, max_iterations: 3,
 *   test_result: { status: 'fail', output: 'FAIL src/auth/login.test.ts' }, review_result: { status: 'pending', feedback: '' } }
 */
export interface IterationCheck {
  /** The task. */
  task_id: string;
  /** The iteration just validated, 1-based. */
  current_iteration: number;
  /** Iterations allowed; overrides the configuration's `max_iterations`. @default the configuration's */
  max_iterations?: number;
  /** This iteration's tests. */
  test_result: TestResult;
  /** This iteration's review. */
  review_result: ReviewResult;
  /** Earlier iterations of the task, oldest first. @default none */
  previous_attempts?: readonly AttemptRecord[];
  /**
   * The change under validation, included in an escalation when `escalation_includes_diff`.
   * @default undefined (no diff in the escalation)
   */
  diff?: string;
}

const testResultSchema = z.strictObject({
  status: z.enum(['pass', 'fail']),
  output: z.string().optional(),
});
const reviewResultSchema = z.strictObject({
  status: z.enum(['approve', 'reject', 'pending']),
  feedback: z.string().optional(),
});

/** zod schema of {@link IterationCheck}. */
export const iterationCheckSchema = z.strictObject({
  task_id: z.string().min(1, 'must be a non-empty string'),
  current_iteration: z.number().int('must be an integer').min(0, 'must be at least 0'),
  max_iterations: z.number().int('must be an integer').min(1, 'must be at least 1').optional(),
  test_result: testResultSchema,
  review_result: reviewResultSchema,
  previous_attempts: z
    .array(
      z.strictObject({
        iteration: z.number().int().min(0),
        test_result: testResultSchema,
        review_result: reviewResultSchema.optional(),
      }),
    )
    .optional(),
  diff: z.string().optional(),
});

/**
 * Validates an {@link IterationCheck}.
 * @throws InvalidInputError naming the field and its value.
 */
export function parseIterationCheck(input: unknown): IterationCheck {
  return parseInput(iterationCheckSchema, input, 'iteration_check') as IterationCheck;
}
