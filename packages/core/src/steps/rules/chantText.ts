/**
 * What chanting is judged on: uninterrupted runs of prose. Gemini CLI's own negatives are never
 * chanting: fenced code (repeated tokens in a loop body), tables, headings, blockquotes, and lines
 * without a letter (divider lines, box drawing). Structure between repeats (code, a markup line, a
 * list item, a markdown marker inside a line) ends a run, unless the same structure already occurred
 * in the run: then it is part of a repeated block.
 */

/** Segments shorter than this never count: `}` or `return x` repeat in any code. */
export const MIN_SEGMENT = 8;

const LETTER = /\p{L}/u;

/** Whether `text` has a letter: divider lines and box drawing have none, and never chant. */
export function hasLetter(text: string): boolean {
  return LETTER.test(text);
}

/** A segment's identity: whitespace collapsed, lower-cased. */
export function segmentKey(raw: string): string {
  return raw.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Whether `code` is an ASCII space (what `\s` matches below 128). */
export function isAsciiSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/**
 * A 53-bit hash of `segmentKey(text.slice(from, to))`, or -1 when that key is shorter than
 * {@link MIN_SEGMENT} or has no letter (it never chants). One pass without allocating for ASCII
 * text; other text goes through {@link segmentKey} (Unicode spaces and case).
 * @example segmentHash('  Fix  It now', 0, 13) === segmentHash('fix it now', 0, 10); // true
 */
export function segmentHash(text: string, from: number, to: number): number {
  let a = LANE_A;
  let b = LANE_B;
  let kept = 0;
  let space = false;
  let letter = false;
  for (let i = from; i < to; i++) {
    let code = text.charCodeAt(i);
    if (code > 127) {
      const key = segmentKey(text.slice(from, to));
      return key.length < MIN_SEGMENT || !hasLetter(key) ? -1 : spanHash(key, 0, key.length);
    }
    if (isAsciiSpace(code)) {
      space = kept > 0;
      continue;
    }
    if (space) {
      a = Math.imul(a ^ 32, 0x01000193);
      b = Math.imul(b ^ 32, 0x5bd1e995);
      kept++;
      space = false;
    }
    if (code >= 65 && code <= 90) code += 32;
    if (code >= 97 && code <= 122) letter = true;
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    kept++;
  }
  return laneHash(a, b, kept, letter);
}

/** The two lanes' offsets of {@link segmentHash}. */
const LANE_A = 0x811c9dc5;
const LANE_B = 0x01000193;

/** {@link segmentHash}'s answer from its lanes: -1 for a key shorter than {@link MIN_SEGMENT} or without a letter. */
function laneHash(a: number, b: number, kept: number, letter: boolean): number {
  return kept < MIN_SEGMENT || !letter ? -1 : (a >>> 0) * 0x200000 + (b & 0x1fffff);
}

/**
 * A 53-bit hash (two FNV-style lanes) of `text.slice(from, to)` as it is, no normalisation: a
 * segment key's hash, and the identity of a piece of structure (a markup line, a list item, a
 * segment with a markdown marker).
 */
export function spanHash(text: string, from: number, to: number): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + (b & 0x1fffff);
}

/** Whether a fence marker (```` ``` ```` or `~~~`) starts at `at`, ending before `to`. */
function fenceAt(text: string, at: number, to: number): boolean {
  const code = text.charCodeAt(at);
  return (
    (code === 96 || code === 126) &&
    at + 3 <= to &&
    text.charCodeAt(at + 1) === code &&
    text.charCodeAt(at + 2) === code
  );
}

/** Where the fence marker starting at `at` ends (a marker may be longer than three characters). */
export function fenceEnd(text: string, at: number, to: number): number {
  const code = text.charCodeAt(at);
  let end = at + 3;
  while (end < to && text.charCodeAt(end) === code) end++;
  return end;
}

/**
 * Where the fence markers of `text` leave off: whether it ends inside code when it starts
 * `inCode`, and where the text after its last marker starts (0 when it has none). Uses `indexOf`,
 * so a text without a marker costs two native searches.
 */
export function afterFences(text: string, inCode: boolean): { inCode: boolean; from: number } {
  let code = inCode;
  let from = 0;
  for (let at = nextFence(text, 0); at !== -1; at = nextFence(text, from)) {
    code = !code;
    from = fenceEnd(text, at, text.length);
  }
  return { inCode: code, from };
}

/** Where the next fence marker (```` ``` ```` or `~~~`) starts from `from`, or -1. */
export function nextFence(text: string, from: number): number {
  const ticks = text.indexOf('```', from);
  const tildes = text.indexOf('~~~', from);
  return ticks === -1 ? tildes : tildes === -1 ? ticks : Math.min(ticks, tildes);
}

/** `| # >`: a line starting with one is a table row, a heading or a blockquote, never prose. */
export function isMarkupStart(code: number): boolean {
  return code === 124 || code === 35 || code === 62;
}

/** `# > * +`: a markdown marker when it starts a word and a space follows (`## Title`, `> quote`, `* item`). */
function isMarkChar(code: number): boolean {
  return code === 35 || code === 62 || code === 42 || code === 43;
}

/** Whether the marker character at `at` starts a word: only space (or the segment start) before its run. */
function startsWord(text: string, from: number, at: number, code: number): boolean {
  let start = at;
  while (start > from && text.charCodeAt(start - 1) === code) start--;
  return start === from || isAsciiSpace(text.charCodeAt(start - 1));
}

/** A list item's marker at `at`: `- `, `* `, `+ ` or digits and `. `. */
function isListMarker(text: string, at: number, to: number): boolean {
  let i = at;
  const first = text.charCodeAt(i);
  if (first === 45 || first === 42 || first === 43) i++;
  else {
    while (i < to && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    if (i === at || text.charCodeAt(i) !== 46) return false;
    i++;
  }
  return i < to && isAsciiSpace(text.charCodeAt(i));
}

/** What a {@link ProseScanner} reports, in text order. */
export interface ProseSink {
  /**
   * A prose segment, `text.slice(from, to)`: between line or sentence breaks, fences and code.
   * `hash` is {@link segmentHash} of it, computed by the scan as it reads the segment (`-1` when
   * the scanner's `hashes` is off).
   */
  segment(text: string, from: number, to: number, hash: number): void;
  /**
   * A piece of structure, by identity: a code block (its content), a markup line, a list item or a
   * segment holding a markdown marker (its text). `at` is where it starts in the scanned text.
   */
  structure(id: number, at: number): void;
}

const CODE_SEED = 0x811c9dc5;

/**
 * Splits text, one line at a time, into prose segments and structure. A fence marker anywhere
 * opens or closes code: text after an opening marker is code until the next marker, text after a
 * closing marker is prose again. Outside code, a line starting with `|`, `#` or `>` is markup, and a
 * list item (`- `, `* `, `+ `, `1. `) or a segment with a markdown marker inside a line (`|`, or
 * `#`, `>`, `*`, `+` starting a word) is structure as well as prose (a chant may be a bulleted
 * list). One pass over the characters, no regular expression, no allocation: each segment's
 * {@link segmentHash} is computed in the same pass (a second pass over every segment was a third
 * of the chanting rule's cost), and only a segment with a character beyond ASCII is hashed again.
 */
export class ProseScanner {
  /** Whether the text so far ends inside a code block. */
  inCode = false;
  /** Characters of prose so far (lines without a letter left out). */
  prose = 0;
  /** Hash of the open code block's content so far. */
  codeId = CODE_SEED;
  /**
   * Whether segments are hashed ({@link ProseSink.segment}'s `hash`; `-1` for every segment when
   * off): a reader that counts no segments does not pay for their hashes.
   */
  hashes = true;
  private codeFrom = 0;

  /** Starts a new message. */
  reset(): void {
    this.inCode = false;
    this.prose = 0;
    this.codeId = CODE_SEED;
    this.codeFrom = 0;
  }

  /**
   * Scans `text.slice(from, to)`, one line without its `\n`.
   * @param lineStart - whether `from` starts a line (a piece cut off a long line does not).
   * @param newline - whether a `\n` follows (it counts as a prose character after prose).
   */
  scanLine(text: string, from: number, to: number, sink: ProseSink, lineStart = true, newline = true): void {
    let marked = false;
    if (lineStart && !this.inCode) {
      let first = from;
      while (first < to && isAsciiSpace(text.charCodeAt(first))) first++;
      if (first < to && isMarkupStart(text.charCodeAt(first))) {
        sink.structure(spanHash(text, first, to), from);
        return;
      }
      marked = first < to && isListMarker(text, first, to);
    }
    let segmentFrom = from;
    let prose = 0;
    let letter = false;
    let wide = false;
    // The open segment's hash as `segmentHash` computes it (its two lanes, the characters kept,
    // a pending space, whether it has a letter; a character beyond ASCII: hashed again at its end).
    let a = LANE_A;
    let b = LANE_B;
    let kept = 0;
    let space = false;
    let segmentLetter = false;
    let segmentWide = false;
    // Locals, not fields, in the loop: it runs once per character of every long message.
    let inCode = this.inCode;
    let codeId = this.codeId;
    const hashes = this.hashes;
    for (let i = from; i < to; i++) {
      const code = text.charCodeAt(i);
      // An ASCII letter in prose (most characters): none of the cases below, one test.
      if (((code | 32) - 97) >>> 0 < 26 && !inCode) {
        prose++;
        letter = true;
        segmentLetter = true;
        if (hashes) {
          if (space) {
            a = Math.imul(a ^ 32, 0x01000193);
            b = Math.imul(b ^ 32, 0x5bd1e995);
            kept++;
            space = false;
          }
          a = Math.imul(a ^ (code | 32), 0x01000193);
          b = Math.imul(b ^ (code | 32), 0x5bd1e995);
          kept++;
        }
        continue;
      }
      if ((code === 96 || code === 126) && fenceAt(text, i, to)) {
        const end = fenceEnd(text, i, to);
        if (inCode) sink.structure(codeId >>> 0, this.codeFrom);
        else {
          const hash = !hashes
            ? -1
            : segmentWide
              ? segmentHash(text, segmentFrom, i)
              : laneHash(a, b, kept, segmentLetter);
          this.flush(text, segmentFrom, i, marked, sink, hash);
          marked = false;
          codeId = CODE_SEED;
          this.codeFrom = i;
        }
        inCode = !inCode;
        segmentFrom = end;
        a = LANE_A;
        b = LANE_B;
        kept = 0;
        space = false;
        segmentLetter = false;
        segmentWide = false;
        i = end - 1;
        continue;
      }
      if (inCode) {
        codeId = Math.imul(codeId ^ code, 0x01000193);
        continue;
      }
      prose++;
      if (code === 46 || code === 33 || code === 63) {
        const hash = !hashes
          ? -1
          : segmentWide
            ? segmentHash(text, segmentFrom, i)
            : laneHash(a, b, kept, segmentLetter);
        this.flush(text, segmentFrom, i, marked, sink, hash);
        marked = false;
        segmentFrom = i + 1;
        a = LANE_A;
        b = LANE_B;
        kept = 0;
        space = false;
        segmentLetter = false;
        segmentWide = false;
        continue;
      }
      if (isAsciiSpace(code)) {
        space = kept > 0;
        continue;
      }
      if (space && hashes) {
        a = Math.imul(a ^ 32, 0x01000193);
        b = Math.imul(b ^ 32, 0x5bd1e995);
        kept++;
        space = false;
      }
      // Not a letter (those took the first test): hashed as it is.
      if (code > 127) {
        wide = true;
        segmentWide = true;
      } else if (code === 124) marked = true;
      else if (isMarkChar(code) && i + 1 < to && isAsciiSpace(text.charCodeAt(i + 1))) {
        marked ||= startsWord(text, segmentFrom, i, code);
      }
      if (hashes) {
        a = Math.imul(a ^ code, 0x01000193);
        b = Math.imul(b ^ code, 0x5bd1e995);
        kept++;
      }
    }
    this.inCode = inCode;
    this.codeId = codeId;
    if (inCode) {
      this.codeId = Math.imul(codeId ^ 10, 0x01000193);
      return;
    }
    const hash = !hashes
      ? -1
      : segmentWide
        ? segmentHash(text, segmentFrom, to)
        : laneHash(a, b, kept, segmentLetter);
    this.flush(text, segmentFrom, to, marked, sink, hash);
    // Divider lines and box drawing are not prose: they do not dilute a chant's share.
    if (letter || (wide && hasLetter(text.slice(from, to)))) this.prose += prose + (newline ? 1 : 0);
  }

  /** Ends the message: a code block still open is structure too. */
  end(sink: ProseSink): void {
    if (this.inCode) sink.structure(this.codeId >>> 0, this.codeFrom);
  }

  private flush(
    text: string,
    from: number,
    to: number,
    marked: boolean,
    sink: ProseSink,
    hash: number,
  ): void {
    if (to <= from) return;
    if (marked) sink.structure(spanHash(text, from, to), from);
    sink.segment(text, from, to, hash);
  }
}

/**
 * One uninterrupted run of prose: how often each segment occurred in it, and how many characters
 * are made of segments repeated at least `repeats` times (a repeated multi-line block is one chant,
 * however many distinct lines it has).
 */
export class ChantRun<K> {
  /** Characters of the run's segments that occurred at least `repeats` times. */
  covered = 0;
  /** The most frequent segment of the run. */
  best: K | undefined;
  /** How often {@link best} occurred. */
  bestCount = 0;
  private counts = new Map<K, number>();
  private seen = new Set<number>();

  /** @param repeats - occurrences that make a segment part of a chant (integer ≥ 2). */
  constructor(private readonly repeats: number) {}

  /** Distinct segments counted in the run, and distinct structure seen in the message. */
  get size(): number {
    return Math.max(this.counts.size, this.seen.size);
  }

  /** Counts one occurrence of `key`, `length` characters long; returns whether it is now the best. */
  add(key: K, length: number): boolean {
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    // Earlier occurrences differ at most in spacing and case: this one's length stands for them.
    if (count === this.repeats) this.covered += length * count;
    else if (count > this.repeats) this.covered += length;
    if (count <= this.bestCount) return false;
    this.best = key;
    this.bestCount = count;
    return true;
  }

  /**
   * Whether the structure `id` ends the run: its first occurrence in the message. Structure that
   * occurs again (a repeated block's heading, list marker or code) is part of the repetition.
   */
  interrupts(id: number): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    return true;
  }

  /** Starts a new run (the structure seen so far is kept). */
  restart(): void {
    this.counts.clear();
    this.covered = 0;
    this.best = undefined;
    this.bestCount = 0;
  }

  /** Starts a new message. */
  reset(): void {
    this.restart();
    this.seen.clear();
  }

  /** The run's counts and the structure seen, for a snapshot. */
  state(): { counts: Array<[K, number]>; seen: number[] } {
    return { counts: [...this.counts], seen: [...this.seen] };
  }

  /** Replaces the run with a {@link state} and the figures kept beside it. */
  load(
    state: { counts: Array<[K, number]>; seen: number[] },
    covered: number,
    best: K | undefined,
    bestCount: number,
  ): void {
    this.counts = new Map(state.counts);
    this.seen = new Set(state.seen);
    this.covered = covered;
    this.best = best;
    this.bestCount = bestCount;
  }
}
