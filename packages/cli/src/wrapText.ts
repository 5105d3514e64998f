/**
 * `text` in lines of at most `columns` (counting `indent`), each after `indent`, broken between
 * words and never inside one (an id or a path longer than the width keeps its line): the narrow
 * layouts of `status` and `scan`.
 * @param columns - the terminal's width; at least 20 characters are left for the text.
 * @example wrapped('stopped by loopguard at call 4', '  ', 20); // ['  stopped by', '  loopguard at call', '  4']
 */
export function wrapped(text: string, indent: string, columns: number): string[] {
  const width = Math.max(20, columns - indent.length);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}
