import {
  fenceEnd,
  hasLetter,
  isAsciiSpace,
  isMarkupStart,
  MIN_SEGMENT,
  ProseScanner,
  type ProseSink,
} from './chantText.js';

/**
 * Whether a whole message can chant, read without the prose scan: most long messages cannot, and
 * the scan (a dozen branches a character) was a quarter of a Gemini CLI step. Exact: `false` only
 * where neither of the chanting rule's paths can reach `repeats`. Native searches find the few
 * places that matter: the fence markers, every place a segment can end, the last prose segment.
 */

/** The tail the chanting rule counts when a message repeats text without breaks (its `TAIL`). */
export const CHANT_TAIL = 40;

/**
 * Where the prose scan of a whole message (line by line from its start, as `ChantingRule` reads it)
 * opens and closes code: the fence markers it meets, in order, an opening one first. A marker on a
 * line that starts, outside code, with `|`, `#` or `>` opens nothing (the scanner skips the line).
 * @example codeFences('a\n```\nx\n```\n> ```'); // [2, 8]
 */
export function codeFences(text: string): number[] {
  const fences: number[] = [];
  let inCode = false;
  // The line of the last marker met (where its `\n` is, or the text's length) and whether it is markup.
  let lineEnd = -1;
  let markup = false;
  // The next ``` and ~~~ from where the search stands, each searched again only once passed.
  let ticks = text.indexOf('```');
  let tildes = text.indexOf('~~~');
  let from = 0;
  for (;;) {
    if (ticks !== -1 && ticks < from) ticks = text.indexOf('```', from);
    if (tildes !== -1 && tildes < from) tildes = text.indexOf('~~~', from);
    const at = ticks === -1 ? tildes : tildes === -1 ? ticks : Math.min(ticks, tildes);
    if (at === -1) return fences;
    if (at > lineEnd) {
      // A new line, read once however many markers it holds (no marker before `at` on it yet).
      const newline = text.indexOf('\n', at);
      lineEnd = newline === -1 ? text.length : newline;
      markup = !inCode && isMarkupLine(text, text.lastIndexOf('\n', at - 1) + 1, at);
    }
    if (markup) {
      if (lineEnd === text.length) return fences;
      from = lineEnd + 1;
      continue;
    }
    fences.push(at);
    inCode = !inCode;
    from = fenceEnd(text, at, text.length);
  }
}

/** Whether the line starting at `start` starts (after ASCII spaces, before `to`) with `| # >`. */
function isMarkupLine(text: string, start: number, to: number): boolean {
  let first = start;
  while (first < to && isAsciiSpace(text.charCodeAt(first))) first++;
  return first < to && isMarkupStart(text.charCodeAt(first));
}

/** `. ! ?`: a sentence's end. */
function isStop(code: number): boolean {
  return code === 46 || code === 33 || code === 63;
}

const lastEnd = { to: -1 };
const lastSink: ProseSink = {
  segment: (_text, _from, to) => {
    lastEnd.to = to;
  },
  structure: () => {},
};
const lineScanner = new ProseScanner();
lineScanner.hashes = false;

/**
 * Where the last prose segment of a whole message ends (the chanting rule's `proseEnd`), or -1
 * when it has none, read from its last lines: a line in code or of markup has none, a line of prose
 * ends its last segment after its last character that is no `. ! ?`; only a line holding a fence
 * marker is scanned. `fences` is {@link codeFences} of `text`.
 */
export function lastSegmentEnd(text: string, fences: readonly number[]): number {
  let fence = fences.length;
  let end = text.length;
  for (;;) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    while (fence > 0 && (fences[fence - 1] as number) >= start) fence--;
    const inCode = fence % 2 === 1;
    if (fence < fences.length && (fences[fence] as number) < end) {
      lineScanner.reset();
      lineScanner.inCode = inCode;
      lastEnd.to = -1;
      lineScanner.scanLine(text, start, end, lastSink, true, end < text.length);
      if (lastEnd.to !== -1) return lastEnd.to;
    } else if (!inCode && !isMarkupLine(text, start, end)) {
      let last = end - 1;
      while (last >= start && isStop(text.charCodeAt(last))) last--;
      if (last >= start) return last + 1;
    }
    if (start === 0) return -1;
    end = start - 1;
  }
}

/** Counts of segment ends by their last four characters (hashed; a collision only over-counts). */
const endCounts = new Uint16Array(4096);
const touched: number[] = [];

/**
 * Whether some segment of the message can occur `repeats` times: every place a prose segment can
 * end (a `. ! ?` or line end outside code, a fence opening code, the end) is counted by the
 * segment's last characters but spaces ({@link endKey}). Equal segments share them; a place with
 * a character beyond ASCII there (its case and spaces are Unicode's) counts for every key.
 */
function segmentsCanRepeat(text: string, fences: readonly number[], repeats: number): boolean {
  let wide = 0;
  let most = 0;
  const count = (at: number): void => {
    const key = endKey(text, at);
    if (key === -1) return;
    if (key === -2) {
      wide++;
      return;
    }
    const slot = key >>> 20;
    if (endCounts[slot] === 0) touched.push(slot);
    const n = ++(endCounts[slot] as number);
    if (n > most) most = n;
  };
  for (const stop of ['.', '!', '?', '\n']) {
    let fence = 0;
    for (let at = text.indexOf(stop); at !== -1; at = text.indexOf(stop, at + 1)) {
      while (fence < fences.length && (fences[fence] as number) < at) fence++;
      if (fence % 2 === 0) count(at);
      // Inside code: go on from the marker that closes it (none: the rest is code).
      else if (fence === fences.length) break;
      else at = fences[fence] as number;
    }
  }
  for (let fence = 0; fence < fences.length; fence += 2) count(fences[fence] as number);
  if (fences.length % 2 === 0) count(text.length);
  for (const slot of touched) endCounts[slot] = 0;
  touched.length = 0;
  return most + wide >= repeats;
}

/** Characters of a segment's end read for its key: enough to tell most segments apart. */
const END_KEY = 12;
/** Characters but spaces of the shortest segment that counts ({@link MIN_SEGMENT}, spaces single between them). */
const MIN_END = (MIN_SEGMENT + 2) >> 1;

/**
 * The key of a segment ending at `at`: up to {@link END_KEY} of its last characters that are no
 * ASCII space, lower-cased, hashed, read back no further than where the segment starts (a
 * `. ! ?`, a line end, a fence marker's end, the text's start); -1 when it has fewer than the five
 * such characters a segment of {@link MIN_SEGMENT} needs, -2 when a character beyond ASCII comes
 * first.
 */
function endKey(text: string, at: number): number {
  let key = 0x811c9dc5;
  let kept = 0;
  for (let i = at - 1; i >= 0 && kept < END_KEY; i--) {
    const code = text.charCodeAt(i);
    if (code > 127) return -2;
    if (isStop(code) || code === 10) break;
    if (isAsciiSpace(code)) continue;
    // The last of three `` ` `` or `~`: a fence marker ends here (fewer are the segment's own).
    if ((code === 96 || code === 126) && text.charCodeAt(i - 1) === code && text.charCodeAt(i - 2) === code)
      break;
    key = Math.imul(key ^ (code >= 65 && code <= 90 ? code | 32 : code), 0x01000193);
    kept++;
  }
  return kept < MIN_END ? -1 : key >>> 0;
}

/**
 * Whether the last {@link CHANT_TAIL} characters of prose can occur `repeats` times before their
 * end: counted over the whole message up to there, which is no less than the rule's count over
 * their run.
 */
function tailCanRepeat(text: string, fences: readonly number[], repeats: number): boolean {
  const end = lastSegmentEnd(text, fences);
  if (end < CHANT_TAIL * repeats) return false;
  const tail = text.slice(end - CHANT_TAIL, end);
  if (!hasLetter(tail)) return false;
  let count = 0;
  for (
    let at = text.indexOf(tail);
    at !== -1 && at + CHANT_TAIL <= end;
    at = text.indexOf(tail, at + CHANT_TAIL)
  ) {
    if (++count >= repeats) return true;
  }
  return false;
}

/**
 * Whether the chanting rule's scan of `text` can find a chant: `false` when no segment can occur
 * `repeats` times (only asked when `segments` is set: the rule counts segments) and the tail of its
 * last prose cannot either.
 * @example mayChant('I will fix it.\n'.repeat(30), 10, true); // true
 */
export function mayChant(text: string, repeats: number, segments: boolean): boolean {
  const fences = codeFences(text);
  return (segments && segmentsCanRepeat(text, fences, repeats)) || tailCanRepeat(text, fences, repeats);
}
