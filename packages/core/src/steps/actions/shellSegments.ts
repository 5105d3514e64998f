/** What can make a shell text more than one segment: a line end or a separator. */
const SPLITS = /[\n;&|]/;

/**
 * The simple commands of a shell text, one per segment: split at `&&`, `||`, `;`, `|` and line
 * ends outside quotes, with heredoc bodies left out (`cat <<'EOF' > f.py … EOF` is one segment, the
 * write). Not a shell parser: enough to tell what a command line does (writes, runs, reads), on the
 * bounded text an agent sends.
 *
 * `limit` stops at that many segments: the first ones, as without it.
 *
 * @example shellSegments('cd /repo && python x.py | head'); // ['cd /repo', 'python x.py', 'head']
 */
export function shellSegments(text: string, limit = Number.POSITIVE_INFINITY): string[] {
  // One line with no separator is one segment (`sed -n 1,40p a.py`, `grep 'x' a.py`): a quote
  // hides separators only, and no heredoc body can follow on the same line.
  if (!SPLITS.test(text)) {
    const trimmed = text.trim();
    return trimmed === '' ? [] : [trimmed];
  }
  const segments: string[] = [];
  let current = '';
  let quote = '';
  let heredoc = '';
  const lines = text.split('\n');
  for (const line of lines) {
    if (heredoc !== '') {
      if (line.trim() === heredoc) heredoc = '';
      continue;
    }
    const marker = /<<-?\s*['"]?([A-Za-z_][\w]*)['"]?/.exec(line);
    if (marker !== null) heredoc = marker[1] as string;
    // The segment's text in this line starts at `from`: cut out at its end, never built a character
    // at a time. A quote is skipped to its end in one search.
    let from = 0;
    for (let i = 0; i < line.length; i++) {
      if (quote !== '') {
        const close = line.indexOf(quote, i);
        if (close === -1) break;
        quote = '';
        i = close;
        continue;
      }
      const char = line[i] as string;
      if (char === '"' || char === "'") {
        quote = char;
        continue;
      }
      const next = line[i + 1];
      if (char === ';' || (char === '&' && next === '&') || char === '|') {
        push(segments, current + line.slice(from, i));
        if (segments.length >= limit) return segments;
        current = '';
        if (next === '&' || next === '|') i++;
        from = i + 1;
      }
    }
    current += line.slice(from);
    // A quote left open runs to the next line (a multi-line python -c "…").
    if (quote === '') {
      push(segments, current);
      if (segments.length >= limit) return segments;
      current = '';
    } else current += '\n';
  }
  push(segments, current);
  return segments;
}

function push(segments: string[], segment: string): void {
  const trimmed = segment.trim();
  if (trimmed !== '') segments.push(trimmed);
}
