/** Longest line scan reads: 64 MiB, the hooks' own event limit. A longer one is skipped unread. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** A line longer than the bound: only its length is known. */
export interface LongLine {
  /** Its bytes, without the line end. */
  longLine: number;
}

/**
 * The lines of a byte stream as UTF-8 text, without their ends (`\n`, `\r\n`), the last one even
 * without an end; a line over `maxBytes` is given as a {@link LongLine} and never held whole, so
 * that memory is bounded by `maxBytes` whatever the file holds (Node's `readline` builds any line
 * whole, and one over V8's largest string ends the process).
 * @example for await (const line of readLines(createReadStream(file))) if (typeof line === 'string') …
 */
export async function* readLines(
  stream: AsyncIterable<Buffer>,
  maxBytes = MAX_LINE_BYTES,
): AsyncGenerator<string | LongLine> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let over = false;
  const take = (piece: Buffer) => {
    heldBytes += piece.length;
    if (heldBytes > maxBytes) {
      over = true;
      held = [];
    } else if (!over && piece.length > 0) held.push(piece);
  };
  const line = (): string | LongLine => {
    const result: string | LongLine = over ? { longLine: heldBytes } : text(held);
    held = [];
    heldBytes = 0;
    over = false;
    return result;
  };
  for await (const chunk of stream) {
    let from = 0;
    for (let end = chunk.indexOf(10, from); end !== -1; end = chunk.indexOf(10, from)) {
      take(chunk.subarray(from, end));
      yield line();
      from = end + 1;
    }
    take(chunk.subarray(from));
  }
  if (heldBytes > 0) yield line();
}

function text(pieces: Buffer[]): string {
  const whole = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
  const end = whole.length > 0 && whole[whole.length - 1] === 13 ? whole.length - 1 : whole.length;
  return whole.toString('utf8', 0, end);
}
