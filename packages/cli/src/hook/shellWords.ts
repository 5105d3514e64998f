/**
 * The words of one shell command (a segment of `shellSegments`), each with its quotes taken off:
 * a quoted run stays one word (`python3 -c "import x; y"` is three). Not a shell parser: enough to
 * read a program, its options and its operands on the text an agent sends.
 * @example shellWords(`rm -f "$CODEX_HOME/hooks.json"`); // ['rm', '-f', '$CODEX_HOME/hooks.json']
 */
export function shellWords(segment: string): string[] {
  return (segment.match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? []).map((word) =>
    word.replace(/'([^']*)'|"([^"]*)"/g, '$1$2'),
  );
}
