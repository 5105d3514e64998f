/**
 * What chanting is judged on: prose. Gemini CLI's own negatives are never chanting: fenced code
 * (repeated tokens in a loop body), tables, headings, blockquotes, and lines without a letter
 * (divider lines, box drawing).
 */

/** Segments shorter than this never count: `}` or `return x` repeat in any code. */
export const MIN_SEGMENT = 8;

const FENCE = /^\s*(?:```|~~~)/;
const LETTER = /\p{L}/u;

/** Whether `text` has a letter: divider lines and box drawing have none, and never chant. */
export function hasLetter(text: string): boolean {
  return LETTER.test(text);
}

/** Whether a line is a code fence (```` ``` ```` or `~~~`, with or without a language). */
export function isFence(line: string): boolean {
  return FENCE.test(line);
}

/**
 * Whether a line is markup rather than prose: a table row, a heading, a blockquote, or no letter at all.
 * @example isMarkupLine('| a | b |'); // true
 */
export function isMarkupLine(line: string): boolean {
  const trimmed = line.trimStart();
  const first = trimmed.charCodeAt(0);
  if (first === 124 || first === 35 || first === 62) return true; // | # >
  return !LETTER.test(trimmed);
}

/**
 * The prose of a message: fenced code and markup lines left out. Returns the text itself when it has
 * neither (most messages), so the common case allocates nothing.
 */
export function proseOf(text: string): string {
  if (!text.includes('```') && !text.includes('~~~') && !/(?:^|\n)\s*[|#>]/.test(text)) return text;
  const kept: string[] = [];
  let inCode = false;
  for (const line of text.split('\n')) {
    if (isFence(line)) {
      inCode = !inCode;
      continue;
    }
    if (!inCode && !isMarkupLine(line)) kept.push(line);
  }
  return kept.join('\n');
}

/** A segment's identity: whitespace collapsed, lower-cased. */
export function segmentKey(raw: string): string {
  return raw.trim().replace(/\s+/g, ' ').toLowerCase();
}

function isAsciiSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** Two FNV-style lanes over a string's characters, as one integer below 2^53. */
function lanesOf(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + (b & 0x1fffff);
}

/**
 * A 53-bit hash of `segmentKey(text.slice(from, to))`, or -1 when that key is shorter than
 * {@link MIN_SEGMENT} or has no letter (it never chants). One pass without allocating for ASCII
 * text; other text goes through {@link segmentKey} (Unicode spaces and case).
 * @example segmentHash('  Fix  It now', 0, 13) === segmentHash('fix it now', 0, 10); // true
 */
export function segmentHash(text: string, from: number, to: number): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  let kept = 0;
  let space = false;
  let letter = false;
  for (let i = from; i < to; i++) {
    let code = text.charCodeAt(i);
    if (code > 127) {
      const key = segmentKey(text.slice(from, to));
      return key.length < MIN_SEGMENT || !hasLetter(key) ? -1 : lanesOf(key);
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
  return kept < MIN_SEGMENT || !letter ? -1 : (a >>> 0) * 0x200000 + (b & 0x1fffff);
}
