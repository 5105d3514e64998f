/**
 * Shortens `text` to `max` characters with an ellipsis in the middle. A NUL character is written as
 * the six characters `\u0000`: what is shown and recorded (evidence, messages) must be storable as
 * text everywhere, and PostgreSQL's text cannot hold a NUL.
 */
export function shorten(text: string, max = 200): string {
  const half = Math.floor((max - 3) / 2);
  if (text.length <= max) {
    const escaped = escapeNul(text);
    return escaped.length <= max
      ? escaped
      : `${escaped.slice(0, half)}...${escaped.slice(escaped.length - half)}`;
  }
  // Escaping lengthens, never shortens: the kept ends of the escaped text are the escaped ends of
  // the text, so a long output is searched only where it is kept.
  const head = escapeNul(text.slice(0, half)).slice(0, half);
  const tail = escapeNul(text.slice(text.length - half));
  return `${head}...${tail.slice(tail.length - half)}`;
}

function escapeNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\\u0000') : text;
}
