import { commandTextOf } from './actionKind.js';
import { printedTexts } from './unseenPrints.js';

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

const NO_WORK: PrintWork = Object.freeze({ typed: [] }) as PrintWork;
/** Input fields holding the text an edit writes (OpenHands' editor, Claude Code's Edit and Write). */
const NEW_FIELDS = ['new_str', 'new_string', 'file_text', 'content', 'contents'];
/** Input fields holding the text an edit replaces. */
const OLD_FIELDS = ['old_str', 'old_string'];
/** A `sed -i` line that is one substitution of one file: `sed -i '2445s/DEBUG: /DEBUG: {x} /' f.py`. */
const SED_SUBSTITUTION =
  /^\s*sed\s+-i\S*\s+(['"])(?:\d+(?:,\d+)?\s*)?s([/|#,])((?:\\.|(?!\2)[^\\])*)\2(?:\\.|(?!\2)[^\\])*\2[gI\d]*\1\s+[^\s;&|<>]+\s*$/;
/** Shorter patterns (`x: `, `->`) locate anything. */
const MIN_PATTERN = 6;
/** A line that is a comment alone. */
const COMMENT_LINE = /^\s*(?:#|\/\/)/;

/**
 * A change's {@link PrintWork}, from its tool input: an editor's old and new text (Claude Code's
 * `MultiEdit` edit by edit), else its shell line. The principle it serves: a change that rewrites
 * only a debug print the agent added itself changes what the agent asks, not the code it is
 * fixing (see `ProbeLedger`).
 *
 * @example printWorkOf("sed -i '12s/DEBUG: x/DEBUG: type x/' a.py"); // { typed: [], rewritten: ['DEBUG: x'] }
 */
export function printWorkOf(input: unknown): PrintWork {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const record = input as Record<string, unknown>;
    const parts = Array.isArray(record.edits) ? record.edits : [record];
    if (parts.some((part) => textOf(part, NEW_FIELDS) !== undefined)) return editorWork(parts);
  }
  const command = commandTextOf(input);
  if (command === '') return NO_WORK;
  const typed = printedTexts(command);
  const sed = SED_SUBSTITUTION.exec(command);
  const pattern = sed === null ? '' : (sed[3] as string).replace(/\\(.)/g, '$1').trim();
  if (pattern.length < MIN_PATTERN) return typed.length === 0 ? NO_WORK : { typed };
  return { typed, rewritten: [pattern] };
}

function editorWork(parts: unknown[]): PrintWork {
  const typed: string[] = [];
  const rewritten: string[] = [];
  let printsOnly = true;
  for (const part of parts) {
    const after = textOf(part, NEW_FIELDS) ?? '';
    const before = textOf(part, OLD_FIELDS) ?? '';
    for (const text of printedTexts(after)) if (!typed.includes(text)) typed.push(text);
    if (!printsOnly) continue;
    const old = printedTexts(before);
    printsOnly = old.length > 0 && onlyPrintLines(before) && onlyPrintLines(after);
    for (const text of old) if (!rewritten.includes(text)) rewritten.push(text);
  }
  return printsOnly && rewritten.length > 0 ? { typed, rewritten } : { typed };
}

/** Whether every line of `code` that is not blank is a print call or a comment. */
function onlyPrintLines(code: string): boolean {
  for (const line of code.split('\n')) {
    if (line.trim() === '' || COMMENT_LINE.test(line)) continue;
    if (printedTexts(line).length === 0) return false;
  }
  return true;
}

function textOf(part: unknown, names: readonly string[]): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const fields = part as Record<string, unknown>;
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * Whether `work` rewrites only prints the agent wrote itself: each text it rewrites lies inside
 * the text of a print the agent typed earlier in the run (`agentPrints`).
 *
 * @example rewritesOwnPrints({ typed: [], rewritten: ['DEBUG: x'] }, ['DEBUG: x=']); // true
 */
export function rewritesOwnPrints(work: PrintWork | undefined, agentPrints: readonly string[]): boolean {
  const rewritten = work?.rewritten;
  if (rewritten === undefined || agentPrints.length === 0) return false;
  return rewritten.every((text) => agentPrints.some((print) => print.includes(text)));
}
