/** The promise an agent prints when it claims the task is complete. */
export const COMPLETE_PROMISE = '<promise>COMPLETE</promise>';

/** The promise an agent prints when it declares itself blocked. */
export const BLOCKED_PROMISE = '<promise>BLOCKED</promise>';

/**
 * A completion promise found in agent output.
 * @example { kind: 'complete', promise: '<promise>COMPLETE</promise>', text: 'COMPLETE' }
 */
export interface CompletionPromiseMatch {
  /** `complete` for `COMPLETE` or one of the configured promises; `blocked` for `BLOCKED`. */
  kind: 'complete' | 'blocked';
  /** The promise as it appeared in the output, for example `<promise>COMPLETE</promise>`. */
  promise: string;
  /** The text between the tags, trimmed, whitespace collapsed. */
  text: string;
}

const PROMISE_TAG = /<promise>([\s\S]*?)<\/promise>/gi;

function normalise(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/**
 * Finds the completion promise in an agent's output: `<promise>COMPLETE</promise>`,
 * `<promise>BLOCKED</promise>` (tags and keywords case-insensitive, whitespace inside the tags
 * ignored) or `<promise>…</promise>` around one of `completionPromises` (an `IterationConfig`'s
 * phrases, compared exactly after trimming and collapsing whitespace). Text outside the tags never
 * counts: "Not all tests pass" does not keep the promise "All tests pass". When the output holds
 * several promises, the last one wins (the agent's final word).
 *
 * @returns the match, or `null` when the output keeps no promise.
 * @example
 * detectCompletionPromise('Done.\n<promise>COMPLETE</promise>'); // { kind: 'complete', … }
 * detectCompletionPromise('<promise>All tests pass</promise>', ['All tests pass']); // { kind: 'complete', … }
 * detectCompletionPromise('All tests pass', ['All tests pass']); // null: not inside the tags
 */
export function detectCompletionPromise(
  output: string,
  completionPromises: readonly string[] = [],
): CompletionPromiseMatch | null {
  if (typeof output !== 'string' || output.length === 0) return null;
  const configured = new Set(completionPromises.map(normalise).filter((p) => p.length > 0));
  let found: CompletionPromiseMatch | null = null;
  for (const match of output.matchAll(PROMISE_TAG)) {
    const text = normalise(match[1] ?? '');
    const upper = text.toUpperCase();
    if (upper === 'COMPLETE' || configured.has(text)) found = { kind: 'complete', promise: match[0], text };
    else if (upper === 'BLOCKED') found = { kind: 'blocked', promise: match[0], text };
  }
  return found;
}
