import { errorSignature } from '../signatures/errorSignature.js';
import type { AttemptRecord } from './iterationCheck.js';

/** A pattern across attempts, for the escalation. */
export interface AttemptPattern {
  /** Which pattern. */
  kind: 'same_test' | 'same_error' | 'alternating' | 'review_rejected' | 'different_each_time';
  /** The pattern in words. */
  description: string;
  /** The tests or errors involved. */
  subjects: string[];
}

/** What an attempt failed on: its failing tests, else its error signature, else its review. */
function failureKeys(attempt: AttemptRecord): string[] {
  if (attempt.test_result.status === 'fail') {
    const error = errorSignature(attempt.test_result.output ?? '');
    if (error.failingTests.length > 0) return error.failingTests;
    return [error.signature || 'tests failed'];
  }
  if (attempt.review_result?.status === 'reject') return ['review rejected'];
  return [];
}

/**
 * The pattern in a task's attempts (oldest first), or `null` with fewer than two failed attempts or
 * no pattern: the same test failing in every attempt, the same error every time, failures
 * alternating between two tests, the review rejecting every attempt, or a different failure each time.
 * @example detectPattern(attempts)?.description; // 'Same test failing in every attempt: TestAdd'
 */
export function detectPattern(attempts: readonly AttemptRecord[]): AttemptPattern | null {
  const keys = attempts.map(failureKeys);
  if (keys.length < 2 || keys.some((k) => k.length === 0)) return null;
  const allTestsFailed = attempts.every((a) => a.test_result.status === 'fail');
  if (allTestsFailed) {
    const common = keys[0]?.filter((key) => keys.every((k) => k.includes(key))) ?? [];
    const first = common[0];
    if (first !== undefined) {
      const failingTests = attempts.some(
        (a) => errorSignature(a.test_result.output ?? '').failingTests.length > 0,
      );
      return failingTests
        ? { kind: 'same_test', description: `Same test failing in every attempt: ${first}`, subjects: common }
        : { kind: 'same_error', description: `Same error in every attempt: ${first}`, subjects: [first] };
    }
    const primary = keys.map((k) => k[0] ?? '');
    const [a = '', b = ''] = primary;
    if (primary.length >= 3 && a !== b && primary.every((key, i) => key === (i % 2 === 0 ? a : b))) {
      return {
        kind: 'alternating',
        description: `Failures alternate between ${a} and ${b}: fixing one breaks the other`,
        subjects: [a, b],
      };
    }
    if (new Set(primary).size === primary.length) {
      return {
        kind: 'different_each_time',
        description: `A different failure in each attempt: ${primary.join(', ')}`,
        subjects: primary,
      };
    }
  }
  if (attempts.every((a) => a.review_result?.status === 'reject')) {
    return { kind: 'review_rejected', description: 'Review rejected in every attempt', subjects: [] };
  }
  return null;
}
