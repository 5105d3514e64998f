import { cutText } from './boundedValue.js';

/** Characters of a tool result the detector sees in full; a longer one keeps its head and tail. */
export const MAX_RESULT_CHARS = 65_536;

/**
 * A tool result as the hook hands it to the detector: as it is up to {@link MAX_RESULT_CHARS}
 * characters; a longer one becomes its first and last halves of that around one line naming its
 * length and a SHA-1 of the whole. The same long output gives the same text (a repeat is still
 * seen), and outputs that differ anywhere give different texts (progress is still seen), while the
 * detector's work stays bounded whatever the tool printed.
 * @example boundedResult('x'.repeat(10_000_000)); // 32 Ki x, "[… 10000000 characters, sha1 …]", 32 Ki x
 */
export function boundedResult(output: string): string {
  return cutText(output, MAX_RESULT_CHARS);
}
