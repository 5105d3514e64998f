/** A line longer than the bound: only its length is known. */
export interface LongLine {
  /** Its characters, without the line end. */
  longLine: number;
}

function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function bounded(line: string, maxLength: number): string | LongLine {
  return line.length > maxLength ? { longLine: line.length } : withoutCr(line);
}

/**
 * Cuts text that arrives in pieces into lines without their line ends (`\n` or `\r\n`). A line over
 * `maxLength` is given as a {@link LongLine} and never held whole; a line over many pieces is joined
 * once, when it ends (not copied again with each piece).
 * @example const s = new LineSplitter(80); s.push('a\nb'); s.end(); // ['a'], then ['b']
 */
export class LineSplitter {
  // the start of the line not ended yet, as it came
  private rest: string[] = [];
  private restLength = 0;
  // the characters of a line over the bound so far (0: none is being skipped)
  private skipping = 0;

  /** @param maxLength - the longest line given as text. */
  constructor(private readonly maxLength: number) {}

  /** The lines `text` ends (often none), in order. */
  push(piece: string): Array<string | LongLine> {
    let text = piece;
    const batch: Array<string | LongLine> = [];
    if (this.skipping > 0) {
      const end = text.indexOf('\n');
      if (end === -1) {
        this.skipping += text.length;
        return batch;
      }
      batch.push({ longLine: this.skipping + end });
      this.skipping = 0;
      text = text.slice(end + 1);
    }
    const lines = text.split('\n');
    const last = lines.pop() as string;
    if (lines.length > 0) {
      if (this.restLength > 0) lines[0] = this.rest.join('') + lines[0];
      this.rest = [];
      this.restLength = 0;
    }
    if (last !== '') {
      this.rest.push(last);
      this.restLength += last.length;
    }
    if (this.restLength > this.maxLength) {
      this.skipping = this.restLength;
      this.rest = [];
      this.restLength = 0;
    }
    for (const line of lines) batch.push(bounded(line, this.maxLength));
    return batch;
  }

  /** The last line, which has no line end (none when the text ended with one), with `tail` added. */
  end(tail = ''): Array<string | LongLine> {
    const last = this.rest.join('') + tail;
    if (this.skipping > 0) return [{ longLine: this.skipping + last.length }];
    return last === '' ? [] : [bounded(last, this.maxLength)];
  }
}
