import { errorSignature } from '../signatures/errorSignature.js';
import { normalizeVolatile } from '../signatures/normalizeVolatile.js';

/**
 * JSON with object keys sorted, so that `{a,b}` and `{b,a}` give the same text.
 * @example stableJson({ b: 1, a: [2] }); // '{"a":[2],"b":1}'
 */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value);
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(record[key])}`).join(',')}}`;
}

/**
 * Top-level input fields that carry the agent's reasoning, not the action (Claude Code's Bash tool
 * takes a `description` beside its `command`): left out of action equality, so a repeated command
 * with reworded reasoning is still a repeat.
 */
export const REASONING_FIELDS: readonly string[] = Object.freeze([
  'description',
  'reason',
  'reasoning',
  'thought',
  'explanation',
]);

/**
 * The text of an action input that equality is judged on: a string as given, anything else as
 * {@link stableJson} without its {@link REASONING_FIELDS}.
 * @example actionText({ command: 'ls', description: 'List files' }); // '{"command":"ls"}'
 */
export function actionText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return stableJson(input);
  const record = input as Record<string, unknown>;
  if (!REASONING_FIELDS.some((field) => field in record)) return stableJson(input);
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!REASONING_FIELDS.includes(key)) kept[key] = value;
  return stableJson(kept);
}

/**
 * Identity of an action: tool plus input, whitespace collapsed and volatile parts (timestamps,
 * ids, hex addresses, temp paths, pids, durations) normalised by core's signature module. Two
 * actions with equal keys are the same action; the agent's reasoning never takes part.
 *
 * @example actionKey('bash', 'ls   /tmp/x1') === actionKey('bash', 'ls /tmp/x2'); // true
 */
export function actionKey(tool: string, input: unknown): string {
  return compactKey(`${tool}\u0000${normalizeVolatile(actionText(input))}`);
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
 * Identity of an observation. A failure is identified by its normalised error signature (line
 * numbers, addresses, timestamps, temp paths, durations removed), so a retry that fails the same
 * way with different noise has the same key; any other output by its normalised text.
 *
 * @example observationKey('Error at a.py:12', true) === observationKey('Error at a.py:40', true); // true
 */
export function observationKey(output: string, error: boolean): string {
  if (error) {
    const signature = errorSignature(boundLines(output));
    if (signature.kind === 'failure') return compactKey(`E\u0000${signature.signature}`);
    return compactKey(`E\u0000${normalizeVolatile(output)}`);
  }
  return compactKey(`O\u0000${normalizeVolatile(output)}`);
}

/**
 * Identity of a message: whitespace collapsed, trimmed, lower-cased. Messages are the agent's own
 * words, which rarely carry timestamps or addresses, so the cheaper key serves (they take no part
 * in action equality).
 * @example messageKey('Run  the tests.') === messageKey('run the tests.'); // true
 */
export function messageKey(text: string): string {
  return compactKey(text.replace(/\s+/g, ' ').trim().toLowerCase());
}

/**
 * A bounded memo for a key function: a long run that repeats itself (the case loop detection is
 * for) normalises each distinct text once. Cleared when full, so memory stays bounded.
 */
export class KeyMemo {
  private readonly entries = new Map<string, string>();

  /** @param capacity - most texts remembered before the memo is cleared. */
  constructor(private readonly capacity: number) {}

  /** The memoised `compute(text)`. */
  get(text: string, compute: (text: string) => string): string {
    const hit = this.entries.get(text);
    if (hit !== undefined) return hit;
    const key = compute(text);
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(text, key);
    return key;
  }
}
