import { CONTENT_FIELDS, isEditorCommand } from './actionKind.js';
import { actionText, actionTextWithout, sortKeys } from './inputText.js';

/** An editor call's input split into what it writes and the rest (see {@link writtenContent}). */
export interface WrittenContent {
  /** The input's text ({@link actionText}) without its content fields: the sub-command, the path. */
  rest: string;
  /** The content fields' values as written, each with its name and length: one-to-one with them. */
  written: string;
}

/**
 * The content an editor call writes apart from the rest of its input: the top-level fields of
 * {@link CONTENT_FIELDS} (`new_str`, `file_text`, `edits`...), or the lines after the first of a
 * SWE-agent editing command (`edit 12:14`); `undefined` for any other input (a command, a read). What an agent writes into a file is its choice, not noise from
 * the run: `timeout = 30s` and `timeout = 60s` are two edits, so the action key masks volatile
 * parts in the rest only (and reading the content once, not through every mask, is most of what
 * an editor call's key cost).
 * @example writtenContent({ command: 'str_replace', path: '/a.py', old_str: 'x', new_str: 'y' })?.rest; // '{"command":"str_replace","path":"/a.py"}'
 */
export function writtenContent(input: unknown): WrittenContent | undefined {
  if (typeof input === 'string') {
    const lineEnd = input.indexOf('\n');
    if (lineEnd === -1 || !isEditorCommand(input)) return undefined;
    return { rest: input.slice(0, lineEnd), written: input.slice(lineEnd + 1) };
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const record = input as Record<string, unknown>;
  let written: string | undefined;
  for (const key of sortKeys(Object.keys(record))) {
    if (!CONTENT_FIELDS.includes(key)) continue;
    const value = record[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const text = typeof value === 'string' ? value : actionText(value, `step.input.${key}`);
    written = `${written ?? ''}${key}\u0000${text.length}\u0000${text}`;
  }
  // No content written (no such field, or every one undefined): the input's text is that of one without them.
  if (written === undefined) return undefined;
  return { rest: actionTextWithout(record, CONTENT_FIELDS), written };
}
