import { hasLetter, MIN_SEGMENT, proseOf, segmentHash, segmentKey } from './chantText.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';
import { shorten } from './StepRule.js';

/** Messages shorter than this never count as chanting: a few repeated words in a short reply cost nothing. */
const MIN_CHANT_LENGTH = 256;
/** Length of the tail searched for when a message repeats text with no line or sentence breaks. */
const TAIL = 40;

/**
 * One message that repeats the same text many times inside itself: the same line or sentence at
 * least `repeats` times, making up at least `share` of the message's prose (messages under 256
 * characters are never chanting). Fenced code, tables, headings, blockquotes and lines without a
 * letter (dividers, box drawing) are left out first; code quoted in a long explanation is kept out
 * by the share.
 *
 * @example new ChantingRule(10, 0.5) // 'I will fix it.\n' × 200 in one reply: hit
 */
export class ChantingRule implements StepRule {
  readonly loopType = 'chanting' as const;

  /**
   * @param repeats - occurrences of one segment that make chanting (integer ≥ 2).
   * @param share - least part of the message (0..1, by characters) the repeated segment must cover.
   */
  constructor(
    private readonly repeats: number,
    private readonly share: number,
  ) {}

  judge(event: JudgedEvent): RuleHit | null {
    if (event.kind !== 'message') return null;
    const { step, evidence } = event.message;
    // Most messages stop here, before any scan.
    if (event.message.text.length < Math.max(MIN_CHANT_LENGTH, this.repeats * MIN_SEGMENT)) return null;
    // Code blocks, tables, headings, quotes and dividers repeat by nature: only prose can chant.
    const text = proseOf(event.message.text);
    if (text.length < Math.max(MIN_CHANT_LENGTH, this.repeats * MIN_SEGMENT)) return null;
    const found = this.repeatedSegment(text) ?? this.repeatedTail(text);
    if (found === null) return null;
    return {
      loopType: this.loopType,
      repeats: found.count,
      since: step,
      evidence: [{ ...evidence, message: shorten(found.segment, 200) }],
      summary: `one message repeated "${shorten(found.segment, 60)}" ${found.count} times`,
    };
  }

  /** The most frequent line or sentence, when it chants. */
  private repeatedSegment(text: string): { segment: string; count: number } | null {
    // A message with fewer segments than `repeats` cannot chant by segment: skip the split and the
    // per-segment normalisation (most long replies have a handful of paragraphs, not 10 sentences).
    if (countSegments(text, this.repeats) < this.repeats) return null;
    // Segments are counted by the hash of their key; only the winner's key is built.
    const counts = new Map<number, number>();
    let bestFrom = 0;
    let bestTo = 0;
    let bestCount = 0;
    let from = 0;
    for (let i = 0; i <= text.length; i++) {
      if (i < text.length && !isSeparator(text.charCodeAt(i))) continue;
      if (i > from) {
        const hash = segmentHash(text, from, i);
        if (hash !== -1) {
          const count = (counts.get(hash) ?? 0) + 1;
          counts.set(hash, count);
          if (count > bestCount) {
            bestFrom = from;
            bestTo = i;
            bestCount = count;
          }
        }
      }
      from = i + 1;
    }
    const best = bestCount === 0 ? '' : segmentKey(text.slice(bestFrom, bestTo));
    return this.chants(text, best, bestCount) ? { segment: best, count: bestCount } : null;
  }

  /** Text repeated without breaks: how often the message's last 40 characters occur in it. */
  private repeatedTail(text: string): { segment: string; count: number } | null {
    if (text.length < TAIL * this.repeats) return null;
    const tail = text.slice(-TAIL);
    if (!hasLetter(tail)) return null;
    let count = 0;
    for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + TAIL)) count++;
    return this.chants(text, tail, count) ? { segment: tail, count } : null;
  }

  private chants(text: string, segment: string, count: number): boolean {
    return count >= this.repeats && segment.length * count >= this.share * text.length;
  }
}

/** `\n . ! ?`: the separators `repeatedSegment` splits on. */
function isSeparator(code: number): boolean {
  return code === 10 || code === 46 || code === 33 || code === 63;
}

/**
 * How many pieces `text.split(/[\n.!?]+/)` gives, counting no further than `limit`: one more than the
 * runs of separators.
 * @example countSegments('a. b. c', 10); // 3
 */
export function countSegments(text: string, limit: number): number {
  let segments = 1;
  for (let i = 0; i < text.length && segments < limit; i++) {
    if (isSeparator(text.charCodeAt(i)) && (i === 0 || !isSeparator(text.charCodeAt(i - 1)))) segments++;
  }
  return segments;
}
