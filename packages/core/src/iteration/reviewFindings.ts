/** Severity of a feedback item; items are ordered high, medium, low. */
export type FeedbackPriority = 'high' | 'medium' | 'low';

/** One issue the reviewer raised. */
export interface ReviewItem {
  /** The issue, as the reviewer wrote it (bullet or sentence). */
  text: string;
  /** How severe it reads. */
  priority: FeedbackPriority;
}

const HIGH =
  /\b(?:security|vulnerab\w*|injection|crash\w*|data loss|must|blocker|blocking|critical|broken|bug|incorrect|wrong|fails?|leak\w*|race)\b/i;
const LOW = /\b(?:nit|nitpick|minor|style|typo|naming|cosmetic|optional|consider|maybe)\b/i;

/**
 * The priority a piece of feedback reads as: `high` for correctness and security words (must,
 * bug, security, crash, wrong, ...), `low` for nits (nit, minor, style, typo, consider, ...), else `medium`.
 * @example priorityOf('Must validate the token signature'); // 'high'
 */
export function priorityOf(text: string): FeedbackPriority {
  if (HIGH.test(text)) return 'high';
  if (LOW.test(text)) return 'low';
  return 'medium';
}

/**
 * Splits review feedback into items: one per bullet or numbered line, else one per sentence.
 * @example reviewItems('- Must hash passwords\n- nit: rename x'); // [{ text: 'Must hash passwords', priority: 'high' }, { text: 'nit: rename x', priority: 'low' }]
 */
export function reviewItems(feedback: string): ReviewItem[] {
  const lines = feedback
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const bullets = lines.filter((line) => /^(?:[-*•]|\d+[.)])\s+/.test(line));
  const pieces =
    bullets.length > 0
      ? bullets.map((line) => line.replace(/^(?:[-*•]|\d+[.)])\s+/, ''))
      : lines.join(' ').split(/(?<=[.!?])\s+(?=[A-Z])/);
  return pieces
    .map((text) => text.trim())
    .filter((text) => text.length > 0)
    .map((text) => ({ text, priority: priorityOf(text) }));
}
