import { stripAnsi } from './normalizeVolatile.js';

/**
 * The longest part of one line of agent output that the parsers read (errorSignature, outputSignature,
 * testFindings and everything built on them). A longer line is parsed by its first 4,096 characters.
 * @default 4096
 */
export const MAX_PARSED_LINE_LENGTH = 4096;

/**
 * How many non-blank lines the parsers read from each end of an output: the first 5,000 and the
 * last 5,000 (where runners print the first error and the summary of failing tests); the lines in
 * between are skipped. With {@link MAX_PARSED_LINE_LENGTH} and patterns that run in time linear
 * in a line's length, parsing costs at most linear time in the output's size, whatever its shape.
 * @default 5000
 */
export const MAX_PARSED_LINES_PER_END = 5000;

/**
 * The lines of `output` as the parsers read them: ANSI sequences removed, split on `\n` or `\r\n`,
 * each cut to {@link MAX_PARSED_LINE_LENGTH} characters and trimmed at the end; blank lines are
 * left out, and of a longer output only the first and last {@link MAX_PARSED_LINES_PER_END} lines are kept.
 *
 * @example
 * parsedLines('\u001b[31mFAIL\u001b[39m a.test.ts  \r\n\nok'); // ['FAIL a.test.ts', 'ok']
 */
export function parsedLines(output: string): string[] {
  const text = stripAnsi(output);
  const head: string[] = [];
  let start = 0;
  while (start <= text.length && head.length < MAX_PARSED_LINES_PER_END) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    addLine(head, text, start, end);
    start = end + 1;
  }
  if (start > text.length) return head;
  const tail: string[] = [];
  let end = text.length;
  while (end > start && tail.length < MAX_PARSED_LINES_PER_END) {
    const newline = text.lastIndexOf('\n', end - 1);
    const lineStart = newline < start ? start : newline + 1;
    addLine(tail, text, lineStart, end);
    end = lineStart - 1;
  }
  return head.concat(tail.reverse());
}

function addLine(lines: string[], text: string, start: number, end: number): void {
  const line = text.slice(start, Math.min(end, start + MAX_PARSED_LINE_LENGTH)).trimEnd();
  if (line.length > 0) lines.push(line);
}
