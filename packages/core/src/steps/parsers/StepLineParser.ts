import { InvalidInputError } from '../../kernel/errors.js';
import { describeValue } from '../../kernel/validate.js';
import type { Step } from '../step.js';

/**
 * Turns an agent's output, one line at a time, into steps. Pure: no I/O; the caller reads the
 * lines (a child process' stdout, a file) and feeds them in order.
 */
export interface StepLineParser {
  /**
   * The steps in one line of output (often none or one); blank lines give none.
   * @param parsed - the line's JSON value, when the caller has parsed it already (`scan` parses
   *   each line once, for its usage too): then the line is not parsed again. Absent: parsed here.
   * @throws InvalidInputError when the line is not a string or not JSON (naming the line number).
   */
  push(line: string, parsed?: unknown): Step[];
  /**
   * The steps still held when the output ends (the agent's last message, waiting to be known as
   * the turn's last word). Absent: nothing is ever held.
   */
  end?(): Step[];
  /**
   * The run the steps of the last {@link push} belong to: the id of the tool call that started a
   * subagent (Claude Code's `parent_tool_use_id`), or `null` (or absent: the format has none) for
   * the agent's own run. A subagent's tool calls interleave with the session's in one stream; each
   * run is judged apart, as the hooks and `scan` judge them.
   */
  readonly subagent?: string | null;
}

/**
 * The one entry check of every line parser: the line must be a string (a caller in plain
 * JavaScript may hand anything); a blank line is `undefined`, any other is parsed as JSON.
 * `parsed`, when given, is the line's value already parsed by the caller (no JSON value is `undefined`).
 * @throws InvalidInputError `line 3 must be a string, got number 42`, or `line 3 is not JSON: ...`.
 * @example readJsonLine('{"a":1}', 1); // { a: 1 }
 */
export function readJsonLine(line: unknown, lineNumber: number, parsed?: unknown): unknown {
  if (parsed !== undefined) return parsed;
  if (typeof line !== 'string') {
    throw new InvalidInputError(`line ${lineNumber} must be a string, got ${describeValue(line)}`);
  }
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new InvalidInputError(`line ${lineNumber} is not JSON: ${line.slice(0, 80)}`, { cause: error });
  }
}
