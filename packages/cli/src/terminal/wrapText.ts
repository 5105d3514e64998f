/**
 * `text` in lines of at most `columns` (counting `indent`), each after `indent`, broken between
 * words and never inside one (an id or a path longer than the width keeps its line): the narrow
 * layouts of `status` and `scan`.
 * @param columns - the terminal's width; at least 20 characters are left for the text.
 * @param firstIndent - the first line's indent (a hanging indent: `''`); default `indent`.
 * @example wrapped('stopped by loopguard at call 4', '  ', 20); // ['  stopped by', '  loopguard at call', '  4']
 */
export function wrapped(text: string, indent: string, columns: number, firstIndent = indent): string[] {
  const lines: string[] = [];
  const lead = () => (lines.length === 0 ? firstIndent : indent);
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > Math.max(20, columns - lead().length)) {
      lines.push(lead() + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(lead() + line);
  return lines;
}

/**
 * `text` for a terminal of `columns`: each line longer than the width {@link wrapped} between
 * words, its continuation indented two spaces; the others as they are. One rule for the lines that
 * are not laid out for a width (an error on stderr, `scan`'s sentences above its tables), which the
 * terminal would otherwise cut mid-word at its edge (sess70).
 * @example withinColumns('loopguard: session s1: stopped by loopguard at call 4', 30) // 'loopguard: session s1: stopped\n  by loopguard at call 4'
 */
export function withinColumns(text: string, columns: number): string {
  return text
    .split('\n')
    .flatMap((line) => (line.length <= columns ? [line] : wrapped(line, '  ', columns, '')))
    .join('\n');
}
