/**
 * A tool output as the detector reads it: a string as is, anything else as JSON (or `String()` when
 * it cannot be serialised, such as a cycle or a BigInt).
 * @example outputText({ ok: false }); // '{"ok":false}'
 */
export function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A thrown tool error as the detector reads it: an `Error`'s message, else {@link outputText}.
 * @example errorText(new Error('ENOENT: missing.txt')); // 'ENOENT: missing.txt'
 */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : outputText(error);
}
