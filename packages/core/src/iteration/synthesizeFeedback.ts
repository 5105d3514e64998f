import type { ReviewResult, TestResult } from './iterationCheck.js';
import { type FeedbackPriority, type ReviewItem, reviewItems } from './reviewFindings.js';
import { type TestFindings, testFindings } from './testFindings.js';

/** Seed 004's synthesised feedback for a retry. */
export interface Feedback {
  /** One line: what failed. */
  summary: string;
  /** What to do, most severe first. */
  actionable_items: string[];
  /** The most severe item's priority. */
  priority: FeedbackPriority;
}

const RANK: Record<FeedbackPriority, number> = { high: 0, medium: 1, low: 2 };
/** Shortest truncated item worth keeping. */
const MIN_ITEM = 20;

/**
 * Turns a failed test run and a review into feedback: a summary, actionable items ordered by
 * priority (test failures are `high`; review items by their wording), and the overall priority.
 * Summary and items together are at most `maxLength` characters: later items are dropped, and the
 * last one kept may be cut with `…`.
 *
 * @param maxLength - seed 004's `feedback_max_length`. @default 500
 * @example
 * synthesizeFeedback({ status: 'fail', output: 'FAIL src/a.test.ts\nExpected: 4\nReceived: 3' }, { status: 'pending' });
 * // { summary: 'Test failed: expected 4, received 3', actionable_items: ['Fix src/a.test.ts: expected 4, received 3'], priority: 'high' }
 */
export function synthesizeFeedback(test: TestResult, review: ReviewResult, maxLength = 500): Feedback {
  const items: ReviewItem[] = [];
  const summaries: string[] = [];
  if (test.status === 'fail') {
    const findings = testFindings(test.output ?? '');
    summaries.push(`Test failed: ${describeFailure(findings)}`);
    items.push(...testItems(findings).map((text) => ({ text, priority: 'high' as const })));
  }
  if (review.status === 'reject') {
    const fromReview = reviewItems(review.feedback ?? '');
    summaries.push(`Review rejected${fromReview[0] === undefined ? '' : `: ${fromReview[0].text}`}`);
    items.push(
      ...(fromReview.length > 0
        ? fromReview
        : [{ text: 'Ask the reviewer what to change', priority: 'medium' as const }]),
    );
  }
  const ordered = items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => RANK[a.item.priority] - RANK[b.item.priority] || a.index - b.index);
  const priority = ordered[0]?.item.priority ?? 'medium';
  return capFeedback(
    summaries.join('; ') || 'Validation did not pass',
    ordered.map(({ item }) => item.text),
    priority,
    maxLength,
  );
}

/** One phrase for what failed: expected vs received, else the message, else the failing test. */
export function describeFailure(findings: TestFindings): string {
  if (findings.expected !== null && findings.received !== null) {
    return `expected ${findings.expected}, received ${findings.received}`;
  }
  return (
    findings.message ??
    (findings.tests[0] === undefined ? 'see the test output' : `${findings.tests[0]} fails`)
  );
}

function testItems(findings: TestFindings): string[] {
  const where = findings.tests[0] ?? findings.location ?? 'the failing test';
  const at = findings.location === null ? '' : ` (at ${findings.location})`;
  const atUnlessNamed = where === findings.location ? '' : at;
  const items: string[] = [];
  if (findings.expected !== null && findings.received !== null) {
    items.push(`Fix ${where}: expected ${findings.expected}, received ${findings.received}${atUnlessNamed}`);
  }
  if (findings.message !== null && !items.some((item) => item.includes(findings.message ?? ''))) {
    items.push(`Resolve ${findings.message}${items.length === 0 ? at : ''}`);
  }
  if (items.length === 0) items.push(`Make ${where} pass${atUnlessNamed}`);
  for (const test of findings.tests.slice(1)) items.push(`Make ${test} pass`);
  return items;
}

function capFeedback(
  summary: string,
  items: readonly string[],
  priority: FeedbackPriority,
  maxLength: number,
): Feedback {
  const cappedSummary = cut(summary, Math.min(summary.length, Math.floor(maxLength / 2)));
  let budget = maxLength - cappedSummary.length;
  const kept: string[] = [];
  for (const item of items) {
    if (item.length <= budget) {
      kept.push(item);
      budget -= item.length;
    } else {
      if (budget >= MIN_ITEM) kept.push(cut(item, budget));
      break;
    }
  }
  return { summary: cappedSummary, actionable_items: kept, priority };
}

function cut(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, Math.max(0, length - 1))}…`;
}
