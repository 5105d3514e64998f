import { z } from 'zod';
import { parseOptions } from '../kernel/parseOptions.js';

/** Seed 004's `iteration_control` configuration (snake_case as in the seed). */
export interface IterationControlOptions {
  /**
   * Iterations before escalating: at `current_iteration >= max_iterations` a failure escalates. Integer ≥ 1.
   * @default 3
   */
  max_iterations?: number;
  /**
   * Retry with feedback when tests fail; when `false`, a test failure escalates at once.
   * @default true
   */
  auto_retry_on_test_fail?: boolean;
  /**
   * Retry with feedback when the review rejects; when `false`, a rejection escalates at once.
   * @default true
   */
  auto_retry_on_review_reject?: boolean;
  /**
   * Put the input's `diff` into an escalation's context.
   * @default true
   */
  escalation_includes_diff?: boolean;
  /**
   * Most characters of synthesised feedback (summary plus actionable items). Integer ≥ 40.
   * @default 500
   */
  feedback_max_length?: number;
}

/** zod schema of {@link IterationControlOptions}. */
export const iterationControlOptionsSchema = z.strictObject({
  max_iterations: z.number().int('must be an integer').min(1, 'must be at least 1').default(3),
  auto_retry_on_test_fail: z.boolean().default(true),
  auto_retry_on_review_reject: z.boolean().default(true),
  escalation_includes_diff: z.boolean().default(true),
  feedback_max_length: z.number().int('must be an integer').min(40, 'must be at least 40').default(500),
});

/** {@link IterationControlOptions} with defaults applied. */
export type ResolvedIterationControlOptions = Required<IterationControlOptions>;

/**
 * Seed 004's default configuration.
 * @example decide(input, { ...DEFAULT_ITERATION_CONTROL, max_iterations: 5 })
 */
export const DEFAULT_ITERATION_CONTROL: Readonly<ResolvedIterationControlOptions> = Object.freeze({
  max_iterations: 3,
  auto_retry_on_test_fail: true,
  auto_retry_on_review_reject: true,
  escalation_includes_diff: true,
  feedback_max_length: 500,
});

/**
 * Applies defaults to iteration-control options.
 * @throws ConfigurationError naming the first invalid option.
 */
export function resolveIterationControlOptions(
  options: IterationControlOptions = {},
): ResolvedIterationControlOptions {
  return parseOptions(iterationControlOptionsSchema, options, 'iteration_control');
}
