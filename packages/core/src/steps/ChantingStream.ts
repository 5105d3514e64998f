import { z } from 'zod';
import { hasLetter, isFence, isMarkupLine, MIN_SEGMENT, segmentKey } from './chantText.js';
import { parseSnapshotPart, type SnapshotJson, type SnapshotPart } from './stepSnapshot.js';

/** Characters of the newest prose kept for the check of text repeated without breaks. */
const WINDOW = 8192;
/** Length of the tail searched for in the window. */
const TAIL = 40;
/** New prose characters between two window checks. */
const CHECK_EVERY = 512;
/** Distinct segments counted before the counts start again (bounded memory on a long reply). */
const MAX_SEGMENTS = 4096;

/** What the stream found: the repeated segment and how often it occurred. */
export interface StreamChant {
  segment: string;
  count: number;
}

/**
 * Chanting in a message while it streams. Complete lines are split into sentences and counted (fenced
 * code and markup lines left out, as in the whole-message rule); text repeated without line breaks
 * is found by counting the newest 40 characters of the unfinished line in its newest 8 KiB, every
 * 512 characters.
 * Work per delta is proportional to the delta (plus the bounded window check), never to the whole
 * message, so a 200,000-character reply costs the same per character as a short one.
 *
 * @example
 * const stream = new ChantingStream(20, 0.5);
 * for (let i = 0; i < 30; i++) stream.push('I will now fix the test.\n'); // non-null from the 20th line
 */
export class ChantingStream implements SnapshotPart {
  private carry = '';
  private inCode = false;
  private counts = new Map<string, number>();
  private best: StreamChant = { segment: '', count: 0 };
  private proseLength = 0;
  private sinceCheck = 0;

  /**
   * @param repeats - occurrences of one segment that make chanting certain (integer ≥ 2).
   * @param share - least part of the prose so far (by characters) the segment must cover.
   */
  constructor(
    private readonly repeats: number,
    private readonly share: number,
  ) {}

  /** Starts a new message. */
  reset(): void {
    this.carry = '';
    this.inCode = false;
    this.counts = new Map();
    this.best = { segment: '', count: 0 };
    this.proseLength = 0;
    this.sinceCheck = 0;
  }

  /** The state of the message being streamed (bounded: the counts and the newest part of the unfinished line). */
  snapshot(): SnapshotJson {
    return {
      carry: this.carry,
      inCode: this.inCode,
      counts: [...this.counts],
      best: { ...this.best },
      proseLength: this.proseLength,
      sinceCheck: this.sinceCheck,
    };
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(streamStateSchema, state, 'snapshot.rules.partial_message');
    this.carry = s.carry;
    this.inCode = s.inCode;
    this.counts = new Map(s.counts);
    this.best = s.best;
    this.proseLength = s.proseLength;
    this.sinceCheck = s.sinceCheck;
  }

  /** Adds the next piece of the message; returns the chant once it is certain, else `null`. */
  push(delta: string): StreamChant | null {
    this.carry += delta;
    const end = this.carry.lastIndexOf('\n');
    if (end === -1) {
      // One long line so far: keep its newest part, bounded, for the window check.
      if (this.carry.length > 2 * WINDOW) {
        const removed = this.carry.length - WINDOW;
        this.addProse(this.inCode ? '' : this.carry.slice(0, removed));
        this.carry = this.carry.slice(removed);
        this.sinceCheck = Math.max(0, this.sinceCheck - removed);
      }
      return this.found() ?? this.checkWindow(this.inCode ? '' : this.carry);
    }
    const complete = this.carry.slice(0, end);
    this.carry = this.carry.slice(end + 1);
    for (const line of complete.split('\n')) this.addLine(line);
    return this.found();
  }

  private addLine(line: string): void {
    if (isFence(line)) {
      this.inCode = !this.inCode;
      return;
    }
    if (this.inCode || isMarkupLine(line)) return;
    this.addProse(`${line}\n`);
    this.sinceCheck = 0;
    for (const raw of line.split(/[.!?]+/)) {
      const segment = segmentKey(raw);
      if (segment.length < MIN_SEGMENT || !hasLetter(segment)) continue;
      if (this.counts.size >= MAX_SEGMENTS && !this.counts.has(segment)) this.counts.clear();
      const count = (this.counts.get(segment) ?? 0) + 1;
      this.counts.set(segment, count);
      if (count > this.best.count) this.best = { segment, count };
    }
  }

  private addProse(text: string): void {
    this.proseLength += text.length;
  }

  private found(): StreamChant | null {
    const { segment, count } = this.best;
    if (count < this.repeats || segment.length * count < this.share * this.proseLength) return null;
    return this.best;
  }

  /**
   * Text repeated without line breaks: the newest 40 characters of the unfinished line, counted in
   * its newest 8 KiB, every 512 characters. (Repetition across lines is the segment counts' job.)
   */
  private checkWindow(pending: string): StreamChant | null {
    if (pending.length - this.sinceCheck < CHECK_EVERY) return null;
    this.sinceCheck = pending.length;
    const text = pending.slice(-WINDOW);
    if (text.length < TAIL * this.repeats) return null;
    const tail = text.slice(-TAIL);
    if (!hasLetter(tail)) return null;
    let count = 0;
    for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + TAIL)) count++;
    if (count < this.repeats || TAIL * count < this.share * text.length) return null;
    return { segment: tail, count };
  }
}

const count = z.number().int().nonnegative();
const streamStateSchema = z.object({
  carry: z.string(),
  inCode: z.boolean(),
  counts: z.array(z.tuple([z.string(), count])),
  best: z.object({ segment: z.string(), count }),
  proseLength: count,
  sinceCheck: count,
});
