import { boundedText } from '@loopguard/core/internal';

/**
 * A tool output as the detector reads it: a string as is, anything else as bounded JSON (core's
 * `boundedText`: a cycle, nesting past 64 levels or an unreadable field is written `"…"`; never throws).
 * @example outputText({ ok: false }); // '{"ok":false}'
 */
export function outputText(value: unknown): string {
  return boundedText(value);
}

/**
 * A thrown tool error as the detector reads it: an `Error`'s message, else {@link outputText}.
 * @example errorText(new Error('ENOENT: missing.txt')); // 'ENOENT: missing.txt'
 */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : outputText(error);
}
