import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import { parseSnapshotPart, type SnapshotJson, type SnapshotPart } from '../options/stepSnapshot.js';
import {
  afterFences,
  ChantRun,
  hasLetter,
  MIN_SEGMENT,
  ProseScanner,
  type ProseSink,
  segmentKey,
} from './chantText.js';

/** Characters of the newest prose kept for the check of text repeated without breaks. */
const WINDOW = 8192;
/** Length of the tail searched for in the window. */
const TAIL = 40;
/** New prose characters between two window checks. */
const CHECK_EVERY = 512;
/** Distinct segments (or pieces of structure) counted before the counts start again (bounded memory on a long reply). */
const MAX_SEGMENTS = 4096;

/** What the stream found: the repeated segment and how often it occurred. */
export interface StreamChant {
  /** The repeated segment, as the stream had it. */
  segment: string;
  /** How often it occurred. */
  count: number;
}

/**
 * Chanting in a message while it streams. Complete lines go through the same {@link ProseScanner}
 * as the whole-message rule (code, markup and structure handled alike) and their sentences are
 * counted in the current run; text repeated without line breaks is found by counting the newest 40
 * characters of the unfinished line (after its last fence marker, outside code) in its newest 8 KiB,
 * every 512 characters.
 * Work per delta is proportional to the delta (plus the bounded window check), never to the whole
 * message, so a 200,000-character reply costs the same per character as a short one.
 *
 * @example
 * const stream = new ChantingStream(20, 0.5);
 * for (let i = 0; i < 30; i++) stream.push('I will now fix the test.\n'); // non-null from the 20th line
 */
export class ChantingStream implements SnapshotPart {
  private carry = '';
  /** Whether the carry continues a line whose start was already scanned (a cut long line). */
  private midLine = false;
  private chant: StreamChant | null = null;
  private sinceCheck = 0;
  private readonly scanner = new ProseScanner();
  private readonly run: ChantRun<string>;
  private readonly sink: ProseSink = {
    segment: (text, from, to) => this.addSegment(text, from, to),
    structure: (id) => this.addStructure(id),
  };

  /**
   * @param repeats - occurrences of one segment that make chanting certain (integer ≥ 2).
   * @param share - least part of the prose so far (by characters) the repeated segments must cover.
   */
  constructor(
    private readonly repeats: number,
    private readonly share: number,
  ) {
    this.run = new ChantRun(repeats);
    // Its segments are counted by their keys (what the snapshot holds), not by hash.
    this.scanner.hashes = false;
  }

  /** Starts a new message. */
  reset(): void {
    this.carry = '';
    this.midLine = false;
    this.chant = null;
    this.sinceCheck = 0;
    this.scanner.reset();
    this.run.reset();
  }

  /** The state of the message being streamed (bounded: the counts and the newest part of the unfinished line). */
  snapshot(): SnapshotJson {
    const { counts, seen } = this.run.state();
    return {
      carry: this.carry,
      inCode: this.scanner.inCode,
      codeId: this.scanner.codeId,
      midLine: this.midLine,
      counts,
      seen,
      best: { segment: this.run.best ?? '', count: this.run.bestCount },
      covered: this.run.covered,
      chant: this.chant === null ? null : { ...this.chant },
      proseLength: this.scanner.prose,
      sinceCheck: this.sinceCheck,
    };
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(streamStateSchema, state, 'snapshot.rules.partial_message');
    this.carry = s.carry;
    this.midLine = s.midLine;
    this.chant = s.chant;
    this.sinceCheck = s.sinceCheck;
    this.scanner.reset();
    this.scanner.inCode = s.inCode;
    this.scanner.codeId = s.codeId;
    this.scanner.prose = s.proseLength;
    const best = s.best.count === 0 ? undefined : s.best.segment;
    this.run.load({ counts: s.counts, seen: s.seen }, s.covered, best, s.best.count);
  }

  /** Adds the next piece of the message; returns the chant once it is certain, else `null`. */
  push(delta: string): StreamChant | null {
    this.carry += delta;
    const end = this.carry.lastIndexOf('\n');
    if (end === -1) {
      // One long line so far: scan its older part, keep its newest part, bounded, for the window check.
      if (this.carry.length > 2 * WINDOW) {
        const removed = this.carry.length - WINDOW;
        this.scanner.scanLine(this.carry, 0, removed, this.sink, !this.midLine, false);
        this.midLine = true;
        this.carry = this.carry.slice(removed);
        this.sinceCheck = Math.max(0, this.sinceCheck - removed);
      }
      return this.chant ?? this.found() ?? this.checkWindow();
    }
    for (let from = 0; from <= end; ) {
      const to = this.carry.indexOf('\n', from);
      this.scanner.scanLine(this.carry, from, to, this.sink, from > 0 || !this.midLine, true);
      this.chant ??= this.found();
      from = to + 1;
    }
    this.midLine = false;
    this.carry = this.carry.slice(end + 1);
    this.sinceCheck = 0;
    return this.chant;
  }

  private addSegment(text: string, from: number, to: number): void {
    const segment = segmentKey(text.slice(from, to));
    if (segment.length < MIN_SEGMENT || !hasLetter(segment)) return;
    if (this.run.size >= MAX_SEGMENTS) this.run.reset();
    this.run.add(segment, to - from);
  }

  private addStructure(id: number): void {
    if (this.run.size >= MAX_SEGMENTS) this.run.reset();
    if (!this.run.interrupts(id)) return;
    // A chant that structure ends is still a chant.
    this.chant ??= this.found();
    this.run.restart();
  }

  private found(): StreamChant | null {
    const { best, bestCount, covered } = this.run;
    if (best === undefined || bestCount < this.repeats || covered < this.share * this.scanner.prose)
      return null;
    return { segment: best, count: bestCount };
  }

  /**
   * Text repeated without line breaks: the newest 40 characters of the unfinished line (after its
   * last fence marker; none inside code), counted in its newest 8 KiB, every 512 characters.
   * (Repetition across lines is the segment counts' job.)
   */
  private checkWindow(): StreamChant | null {
    const pending = this.carry;
    if (pending.length - this.sinceCheck < CHECK_EVERY) return null;
    this.sinceCheck = pending.length;
    const fences = afterFences(pending, this.scanner.inCode);
    if (fences.inCode) return null;
    const text = pending.slice(Math.max(fences.from, pending.length - WINDOW));
    if (text.length < TAIL * this.repeats) return null;
    const tail = text.slice(-TAIL);
    if (!hasLetter(tail)) return null;
    let count = 0;
    for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + TAIL)) count++;
    if (count < this.repeats || TAIL * count < this.share * text.length) return null;
    return { segment: tail, count };
  }
}

/**
 * Fields added after the first snapshots have defaults, so an older snapshot still restores. Built
 * on first use (see parseSnapshotPart).
 */
const streamStateSchema = lazySchema(() => {
  const count = z.number().int().nonnegative();
  const chant = z.object({ segment: z.string(), count });
  return z.object({
    carry: z.string(),
    inCode: z.boolean(),
    codeId: z.number().int().default(0),
    midLine: z.boolean().default(false),
    counts: z.array(z.tuple([z.string(), count])),
    seen: z.array(count).default([]),
    best: chant,
    covered: count.default(0),
    chant: chant.nullable().default(null),
    proseLength: count,
    sinceCheck: count,
  });
});
