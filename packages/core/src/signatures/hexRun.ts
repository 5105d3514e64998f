/**
 * Whether `text` has a run of at least `length` hex digits (either case): one pass, no regular
 * expression. The cheap precondition of the patterns that mask UUIDs, hashes and hex ids.
 * @example hasHexRun('commit 3f9a2c1d', 8); // true
 */
export function hasHexRun(text: string, length: number): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i) | 32;
    if ((code >= 48 && code <= 57) || (code >= 97 && code <= 102)) {
      if (++run >= length) return true;
    } else run = 0;
  }
  return false;
}

/**
 * The length of the longest run of hex digits (either case) in `text`: one pass for every length
 * asked after it, where {@link hasHexRun} is a pass per length.
 * @example longestHexRun('commit 3f9a2c1d, pid 12'); // 8
 */
export function longestHexRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i) | 32;
    if ((code >= 48 && code <= 57) || (code >= 97 && code <= 102)) run++;
    else {
      longest = Math.max(longest, run);
      run = 0;
    }
  }
  return Math.max(longest, run);
}
