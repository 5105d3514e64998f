import { mix32 } from '../keys/fingerprint.js';

/**
 * Near-duplicate actions: the Jaccard similarity of their word sets, estimated from bottom-k MinHash
 * sketches. Words are runs of letters, digits and `_`, lower-cased, with digits left out (so
 * `edit 71:71` and `edit 70:70` are the same words). Near-duplicates need the same tool, which is
 * not a word (two short commands of one tool would look alike through it). A sketch keeps
 * the {@link SKETCH_SIZE} smallest word hashes, so it is exact for actions of up to that many
 * distinct words and a bounded estimate for longer ones (a long edit body).
 *
 * Why words and not characters: an agent's near-duplicate retries reorder, add or drop words
 * (`search_dir "null TreeSet"` after `search_dir "TreeSet deserialize null"`) or change one
 * identifier in a block; a word set sees all of these as small changes, costs one pass, and needs
 * no tuning of a shingle length.
 */

/** Words kept per sketch. */
export const SKETCH_SIZE = 64;
/** Characters of an action read for its sketch. */
const SKETCH_TEXT = 4000;

/** A sorted array of the smallest distinct word hashes. */
export type Sketch = Uint32Array;

/**
 * The sketch of an action.
 * @example jaccard(sketchOf('edit 71:71 foo'), sketchOf('edit 70:70 foo')); // 1
 */
export function sketchOf(text: string): Sketch {
  const words = new Set<number>();
  let hash = 0x811c9dc5;
  let length = 0;
  const end = Math.min(text.length, SKETCH_TEXT);
  for (let i = 0; i <= end; i++) {
    let code = i < end ? text.charCodeAt(i) : 32;
    if (code >= 65 && code <= 90) code += 32;
    const word = (code >= 97 && code <= 122) || code === 95 || (code >= 48 && code <= 57) || code > 127;
    if (word) {
      if (code < 48 || code > 57) {
        hash = Math.imul(hash ^ code, 0x01000193);
        length++;
      }
      continue;
    }
    if (length > 0) words.add(mix32(hash));
    hash = 0x811c9dc5;
    length = 0;
  }
  const sorted = Uint32Array.from(words).sort();
  return sorted.length > SKETCH_SIZE ? sorted.slice(0, SKETCH_SIZE) : sorted;
}

/**
 * Estimated Jaccard similarity of two sketches: among the k smallest hashes of their union, the
 * share present in both (exact when both sets are smaller than {@link SKETCH_SIZE}).
 */
export function jaccard(a: Sketch, b: Sketch): number {
  const k = Math.min(SKETCH_SIZE, a.length + b.length);
  let i = 0;
  let j = 0;
  let union = 0;
  let both = 0;
  while (union < k && (i < a.length || j < b.length)) {
    const x = i < a.length ? (a[i] as number) : Number.POSITIVE_INFINITY;
    const y = j < b.length ? (b[j] as number) : Number.POSITIVE_INFINITY;
    if (x === y) {
      both++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
    union++;
  }
  return union === 0 ? 1 : both / union;
}

const PATH_LIKE = /\/|\.[A-Za-z]\w{0,5}$/;

/**
 * The files an action names (tokens with a `/` or a file extension), sorted and joined: two actions
 * that differ in the file they act on are one command over many files, never near-duplicates.
 * @example targetsOf('git checkout a/b.py') === targetsOf('git checkout a/c.py'); // false
 */
export function targetsOf(text: string): string {
  const found = new Set<string>();
  for (const token of text.slice(0, SKETCH_TEXT).split(/[\s"'`:,;()=<>]+/)) {
    if (token.length > 1 && PATH_LIKE.test(token)) found.add(token);
  }
  return [...found].sort().join('\u0000');
}
