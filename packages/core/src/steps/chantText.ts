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
