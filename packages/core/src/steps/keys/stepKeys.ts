import { normalizeVolatile } from '../../signatures/normalizeVolatile.js';
import { writtenContent } from '../actions/writtenContent.js';

/**
 * Identity of an action: tool plus input, whitespace collapsed and volatile parts (timestamps,
 * ids, hex addresses, temp paths, pids, durations) normalised by core's signature module. An
 * editor call's written content ({@link writtenContent}) is kept as written: only the rest of its
 * input is normalised. Two actions with equal keys are the same action; the agent's reasoning never
 * takes part.
 *
 * @example actionKey('bash', 'ls   /tmp/x1') === actionKey('bash', 'ls /tmp/x2'); // true
 * @param text - the input's text ({@link actionText}).
 * @param input - the input itself (omitted: `text` is the whole input, as a command line is).
 */
export function actionKey(tool: string, text: string, input?: unknown): string {
  const content = input === undefined ? undefined : writtenContent(input);
  if (content === undefined) return compactKey(`${tool}\u0000${normalizeVolatile(text)}`);
  return compactKey(`${tool}\u0000${normalizeVolatile(content.rest)}\u0000${content.written}`);
}

/** Keys longer than this are kept as a prefix, the length and a 64-bit hash: a long run's set of seen turns stays small. */
const FULL_KEY_LENGTH = 512;

/**
 * A 64-bit FNV-1a hash of `text` (two 32-bit lanes with different offsets), as 16 hex digits.
 * @example textHash('abc').length; // 16
 */
export function textHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** `key` itself when short, else its first 256 characters, its length and its {@link textHash}. */
export function compactKey(key: string): string {
  if (key.length <= FULL_KEY_LENGTH) return key;
  return `${key.slice(0, FULL_KEY_LENGTH / 2)}\u0000${key.length}\u0000${textHash(key)}`;
}

/** Longest line handed to `errorSignature`; see {@link boundLines}. */
const SIGNATURE_LINE_LENGTH = 256;

/**
 * `output` with every line cut to 256 characters. `errorSignature`'s source-path pattern takes
 * super-linear time on long lines without spaces (a test runner's line of 8,000 progress dots with a
 * failure elsewhere: about 0.4 s), and an error's identity is in the start of its line.
 * @example boundLines("x".repeat(600)).length; // 256
 */
export function boundLines(output: string): string {
  if (output.length <= SIGNATURE_LINE_LENGTH) return output;
  return output
    .split('\n')
    .map((line) => (line.length > SIGNATURE_LINE_LENGTH ? line.slice(0, SIGNATURE_LINE_LENGTH) : line))
    .join('\n');
}

/**
 * Identity of a message: whitespace collapsed, trimmed, lower-cased, digits left out ("attempt 1",
 * "attempt 2" are one message), as a 64-bit hash with the kept length; `''` for a message with
 * nothing but whitespace and digits. One pass, no regular expression: messages are the most
 * frequent long texts of a run. Messages take no part in action equality.
 * @example messageKey('Run  the tests 2.') === messageKey('run the tests 3.'); // true
 */
export function messageKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  let kept = 0;
  let space = false;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    // One lookup for the ASCII characters that are not kept as they are (most are kept).
    const kind = code < 128 ? (MESSAGE_CLASS[code] as number) : KEPT;
    if (kind !== KEPT) {
      if (kind === DIGIT) continue;
      if (kind === SPACE) {
        space = kept > 0;
        continue;
      }
      code += 32;
    }
    if (space) {
      a = Math.imul(a ^ 32, 0x01000193);
      b = Math.imul(b ^ 32, 0x5bd1e995);
      space = false;
    }
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    kept++;
  }
  if (kept === 0) return '';
  return `${unsigned(a).toString(36)}.${unsigned(b).toString(36)}.${kept}`;
}

/**
 * An int32 read as uint32 (`value >>> 0`). Written with a number that is no small integer: V8 then
 * never guesses the result is one. With `>>> 0`, a function called seldom (the message key is read
 * only for a monologue's messages) was optimised while its first results were small and left its
 * optimised code on every larger one ("lost precision"), once a call: 240 times in three replays of
 * the gemini-3-pro corpus.
 */
function unsigned(value: number): number {
  return value < 0 ? value + 0x1_0000_0000 : value;
}

/**
 * Whether `text` has nothing but digits and whitespace (space, tab, line ends): whether its
 * {@link messageKey} is `''`, read up to its first other character (most messages: the first).
 * @example isBlankMessage(' 12\n'); // true
 */
export function isBlankMessage(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128) return false;
    const kind = MESSAGE_CLASS[code] as number;
    if (kind !== DIGIT && kind !== SPACE) return false;
  }
  return true;
}

/** {@link messageKey}'s classes of the ASCII characters: kept, a digit (left out), a space, an upper-case letter. */
const KEPT = 0;
const DIGIT = 1;
const SPACE = 2;
const UPPER = 3;
const MESSAGE_CLASS = new Uint8Array(128);
for (let code = 48; code <= 57; code++) MESSAGE_CLASS[code] = DIGIT;
for (const code of [32, 9, 10, 13]) MESSAGE_CLASS[code] = SPACE;
for (let code = 65; code <= 90; code++) MESSAGE_CLASS[code] = UPPER;
