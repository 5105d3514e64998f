import { commandTextOf } from '../actions/actionKind.js';
import { type PrintEditReader, printEditReader, printedTexts } from './unseenPrints.js';

/**
 * What a change does to debug prints: the print texts it writes, and, when it touches nothing but
 * print calls, the texts of the prints it rewrites. See {@link printWorkOf}.
 */
export interface PrintWork {
  /** The constant texts of the print and logging calls the change writes (see `printedTexts`). */
  typed: string[];
  /**
   * When every line the change replaces and writes is a print call (or a comment): the texts that
   * locate what it rewrites (an editor's old print texts; a `sed` substitution's pattern). Absent:
   * the change touches code that is not a print, or cannot be told.
   */
  rewritten?: string[];
}

/** Input fields holding the text an edit writes (OpenHands' editor, Claude Code's Edit and Write). */
export const NEW_FIELDS = ['new_str', 'new_string', 'file_text', 'content', 'contents'];
/** Input fields holding the text an edit replaces. */
export const OLD_FIELDS = ['old_str', 'old_string'];
/** A `sed -i` line that is one substitution of one file: `sed -i '2445s/DEBUG: /DEBUG: {x} /' f.py`. */
const SED_SUBSTITUTION =
  /^\s*sed\s+-i\S*\s+(['"])(?:\d+(?:,\d+)?\s*)?s([/|#,])((?:\\.|(?!\2)[^\\])*)\2(?:\\.|(?!\2)[^\\])*\2[gI\d]*\1\s+[^\s;&|<>]+\s*$/;
/** Shorter patterns (`x: `, `->`) locate anything. */
const MIN_PATTERN = 6;
/** A line that is a comment alone. */
const COMMENT_LINE = /^\s*(?:#|\/\/)/;

/**
 * What a change does to debug prints, each part read when first asked: the prints it types are read
 * for a change to the code under test, what it rewrites only once the agent has typed prints there.
 */
export interface PrintWorkReader {
  /** See {@link PrintWork.typed}. */
  typed(): readonly string[];
  /** See {@link PrintWork.rewritten}. */
  rewritten(): readonly string[] | undefined;
}

/**
 * A change's {@link PrintWorkReader}, from its tool input: an editor's old and new text (Claude
 * Code's `MultiEdit` edit by edit; the prints it types are those `prints` reads), else its shell
 * line. The principle it serves: a change that rewrites only a debug print the agent added itself
 * changes what the agent asks, not the code it is fixing (see `ProbeLedger`).
 */
export function printWorkReader(input: unknown, prints: PrintEditReader): PrintWorkReader {
  let typed: readonly string[] | undefined;
  let rewritten: readonly string[] | undefined | null = null;
  return {
    typed: () => {
      typed ??= editorParts(input) === undefined ? printedTexts(commandTextOf(input)) : prints(false).added;
      return typed;
    },
    rewritten: () => {
      if (rewritten === null) rewritten = rewrittenBy(input);
      return rewritten;
    },
  };
}

/** A {@link PrintWorkReader} over a {@link PrintWork} already read (a snapshot's). */
export function printWorkOfState(work: PrintWork): PrintWorkReader {
  return { typed: () => work.typed, rewritten: () => work.rewritten };
}

/**
 * A change's {@link PrintWork}, read whole (for a snapshot, and for tests).
 *
 * @example printWorkOf("sed -i '12s/DEBUG: x/DEBUG: type x/' a.py"); // { typed: [], rewritten: ['DEBUG: x'] }
 */
export function printWorkOf(
  input: unknown,
  reader = printWorkReader(input, printEditReader(input)),
): PrintWork {
  const rewritten = reader.rewritten();
  const typed = [...reader.typed()];
  return rewritten === undefined ? { typed } : { typed, rewritten: [...rewritten] };
}

/** An editor input's edits (`MultiEdit`'s, else the input itself); `undefined`: not an editor's. */
export function editorParts(input: unknown): unknown[] | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const record = input as Record<string, unknown>;
  const parts = Array.isArray(record.edits) ? record.edits : [record];
  return parts.some((part) => textOf(part, NEW_FIELDS) !== undefined) ? parts : undefined;
}

/** See {@link PrintWork.rewritten}. */
function rewrittenBy(input: unknown): string[] | undefined {
  const parts = editorParts(input);
  if (parts !== undefined) return editorRewrites(parts);
  const command = commandTextOf(input);
  if (!command.includes('sed')) return undefined;
  const sed = SED_SUBSTITUTION.exec(command);
  const pattern = sed === null ? '' : (sed[3] as string).replace(/\\(.)/g, '$1').trim();
  return pattern.length < MIN_PATTERN ? undefined : [pattern];
}

function editorRewrites(parts: unknown[]): string[] | undefined {
  const rewritten: string[] = [];
  for (const part of parts) {
    const before = textOf(part, OLD_FIELDS) ?? '';
    const old = printedTexts(before);
    if (old.length === 0 || !onlyPrintLines(before) || !onlyPrintLines(textOf(part, NEW_FIELDS) ?? ''))
      return undefined;
    for (const text of old) if (!rewritten.includes(text)) rewritten.push(text);
  }
  return rewritten;
}

/** Whether every line of `code` that is not blank is a print call or a comment. */
function onlyPrintLines(code: string): boolean {
  for (const line of code.split('\n')) {
    if (line.trim() === '' || COMMENT_LINE.test(line)) continue;
    if (printedTexts(line).length === 0) return false;
  }
  return true;
}

/** The first of `names` that is a string field of `part` (`undefined`: none). */
export function textOf(part: unknown, names: readonly string[]): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const fields = part as Record<string, unknown>;
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * Whether a change rewrites only prints the agent wrote itself: each text it rewrites lies inside
 * the text of a print the agent typed earlier in the run (`agentPrints`).
 *
 * @example rewritesOwnPrints(['DEBUG: x'], ['DEBUG: x=']); // true
 */
export function rewritesOwnPrints(
  rewritten: readonly string[] | undefined,
  agentPrints: readonly string[],
): boolean {
  if (rewritten === undefined || rewritten.length === 0 || agentPrints.length === 0) return false;
  return rewritten.every((text) => agentPrints.some((print) => print.includes(text)));
}
