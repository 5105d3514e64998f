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
