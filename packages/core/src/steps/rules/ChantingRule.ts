import { shorten } from '../keys/shorten.js';
import { CHANT_TAIL, mayChant } from './chantBound.js';
import { ChantRun, hasLetter, MIN_SEGMENT, ProseScanner, type ProseSink, segmentKey } from './chantText.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/** Messages shorter than this never count as chanting: a few repeated words in a short reply cost nothing. */
const MIN_CHANT_LENGTH = 256;
/** Length of the tail searched for when a message repeats text with no line or sentence breaks. */
const TAIL = CHANT_TAIL;

/**
 * One message that repeats itself many times inside: within one uninterrupted run of prose, lines
 * or sentences each said at least `repeats` times that together make up at least `share` of the
 * message's prose (a block of five lines said over and over is one chant). Messages under 256
 * characters are never chanting. Fenced code, tables, headings, blockquotes and lines without a
 * letter (dividers, box drawing) are not prose; structure between repeats (a code block, a markup
 * line, a list item, a markdown marker inside a line) ends a run the first time it occurs in the
 * message; when it recurs it is part of a repeated block (see {@link ProseScanner}). Text repeated without breaks is caught by counting the last 40
 * characters of prose in their run.
 *
 * @example new ChantingRule(10, 0.5) // 'I will fix it.\n' × 200 in one reply: hit
 */
export class ChantingRule implements StepRule {
  readonly loopType = 'chanting' as const;
  private readonly scan: MessageScan;

  /**
   * @param repeats - occurrences of one segment that make chanting (integer ≥ 2).
   * @param share - least part of the message's prose (0..1, by characters) the repeated segments must cover.
   */
  constructor(
    private readonly repeats: number,
    private readonly share: number,
  ) {
    this.scan = new MessageScan(repeats);
  }

  judge(event: JudgedEvent): RuleHit | null {
    if (event.kind !== 'message') return null;
    const { step, evidence } = event.message;
    const { text } = event.message;
    // Most messages stop here, before any scan.
    if (text.length < Math.max(MIN_CHANT_LENGTH, this.repeats * MIN_SEGMENT)) return null;
    // A message with fewer segments than `repeats` cannot chant by segment: skip hashing them (most
    // long replies have a handful of paragraphs, not 10 sentences).
    const hashing = countSegments(text, this.repeats) >= this.repeats;
    // Without segments enough, only text repeated without breaks can chant, and `repeats` tails
    // need that many times TAIL characters: a shorter message cannot, so it is not scanned.
    if (!hashing && text.length < TAIL * this.repeats) return null;
    // Most long messages cannot chant at all, which their segment ends and tail tell without the scan.
    if (!mayChant(text, this.repeats, hashing)) return null;
    const scan = this.scan;
    scan.run(text, hashing);
    if (scan.prose < Math.max(MIN_CHANT_LENGTH, this.repeats * MIN_SEGMENT)) return null;
    const found = this.repeatedSegments(text) ?? this.repeatedTail(text);
    if (found === null) return null;
    return {
      loopType: this.loopType,
      repeats: found.count,
      since: step,
      evidence: [{ ...evidence, message: shorten(found.segment, 200) }],
      summary: `one message repeated "${shorten(found.segment, 60)}" ${found.count} times`,
    };
  }

  /** The run whose repeated segments cover the most, when they cover enough. */
  private repeatedSegments(text: string): { segment: string; count: number } | null {
    const { best } = this.scan;
    if (best.count < this.repeats || best.covered < this.share * this.scan.prose) return null;
    return { segment: segmentKey(text.slice(best.from, best.to)), count: best.count };
  }

  /** Text repeated without breaks: how often the last 40 characters of prose occur in their run. */
  private repeatedTail(text: string): { segment: string; count: number } | null {
    const { tailRunFrom: from, proseEnd: end } = this.scan;
    if (end - from < TAIL * this.repeats) return null;
    const tail = text.slice(end - TAIL, end);
    if (!hasLetter(tail)) return null;
    let count = 0;
    for (
      let at = text.indexOf(tail, from);
      at !== -1 && at + TAIL <= end;
      at = text.indexOf(tail, at + TAIL)
    ) {
      count++;
    }
    if (count < this.repeats || TAIL * count < this.share * this.scan.prose) return null;
    return { segment: tail, count };
  }
}

/** The best run of one message, found in one pass. Reused from message to message. */
class MessageScan implements ProseSink {
  /** Characters of prose in the message. */
  prose = 0;
  /** The run whose chanting segments cover the most: its best segment's place and count, and the cover. */
  readonly best = { from: 0, to: 0, count: 0, covered: 0 };
  /** Where the last prose of the message ends, and where its run starts. */
  proseEnd = 0;
  tailRunFrom = 0;
  private readonly scanner = new ProseScanner();
  private readonly current: ChantRun<number>;
  private runFrom = 0;
  private bestFrom = 0;
  private bestTo = 0;
  private hashing = true;

  constructor(repeats: number) {
    this.current = new ChantRun(repeats);
  }

  run(text: string, hashing: boolean): void {
    this.hashing = hashing;
    this.scanner.hashes = hashing;
    this.scanner.reset();
    this.current.reset();
    this.best.count = 0;
    this.best.covered = 0;
    this.runFrom = 0;
    this.proseEnd = 0;
    this.tailRunFrom = 0;
    let from = 0;
    while (from <= text.length) {
      const newline = text.indexOf('\n', from);
      const to = newline === -1 ? text.length : newline;
      this.scanner.scanLine(text, from, to, this, true, newline !== -1);
      from = to + 1;
    }
    this.scanner.end(this);
    this.endRun();
    this.prose = this.scanner.prose;
  }

  segment(_text: string, from: number, to: number, hash: number): void {
    this.proseEnd = to;
    this.tailRunFrom = this.runFrom;
    if (!this.hashing) return;
    if (hash !== -1 && this.current.add(hash, to - from)) {
      this.bestFrom = from;
      this.bestTo = to;
    }
  }

  structure(id: number, at: number): void {
    if (!this.current.interrupts(id)) return;
    this.endRun();
    this.current.restart();
    this.runFrom = at;
  }

  private endRun(): void {
    const { covered, bestCount } = this.current;
    if (covered < this.best.covered || (covered === this.best.covered && bestCount <= this.best.count))
      return;
    this.best.from = this.bestFrom;
    this.best.to = this.bestTo;
    this.best.count = bestCount;
    this.best.covered = covered;
  }
}

/** `\n . ! ?`: the separators of `countSegments`. */
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
