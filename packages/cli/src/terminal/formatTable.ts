import { printable } from './terminalText.js';

/**
 * Formats rows as a plain-text table with a header and a separator line; cells are cut to `maxWidth`,
 * their control characters shown as U+FFFD ({@link printable}: cells quote commands and results).
 * @example formatTable(['id', 'topic'], [['1', 'loop_recovery']])
 */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  maxWidth = 60,
): string {
  const cut = (cell: string): string => {
    const line = printable(cell.replace(/\s+/g, ' '));
    return line.length > maxWidth ? `${line.slice(0, maxWidth - 1)}…` : line;
  };
  const cells = [headers.map(cut), ...rows.map((row) => row.map(cut))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join(' | ')
      .trimEnd();
  const [head, ...body] = cells;
  return [line(head ?? []), widths.map((w) => '-'.repeat(w)).join('-+-'), ...body.map(line)].join('\n');
}
