/** 1 for the hex digits of the ASCII range (either case), else 0. */
const HEX = new Uint8Array(128);
for (const digit of '0123456789abcdefABCDEF') HEX[digit.charCodeAt(0)] = 1;

/**
 * Whether `text` has a run of at least `length` hex digits (either case): one pass, no regular
 * expression. The cheap precondition of the patterns that mask UUIDs, hashes and hex ids. The run is
 * counted without a branch on the character (`& -hex` zeroes it): hex and other characters
 * alternate unpredictably in code and ids.
 * @example hasHexRun('commit 3f9a2c1d', 8); // true
 */
export function hasHexRun(text: string, length: number): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    run = (run + 1) & -(code < 128 ? (HEX[code] as number) : 0);
    if (run >= length) return true;
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
    const code = text.charCodeAt(i);
    run = (run + 1) & -(code < 128 ? (HEX[code] as number) : 0);
    longest = Math.max(run, longest);
  }
  return longest;
}
