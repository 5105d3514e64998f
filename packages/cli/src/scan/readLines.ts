import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

/**
 * Longest line scan reads: 64 Mi characters (at least 64 MiB), the hooks' own event limit. A longer
 * one is skipped unread.
 */
export const MAX_LINE_LENGTH = 64 * 1024 * 1024;

/** A line longer than the bound: only its length is known. */
export interface LongLine {
  /** Its characters, without the line end. */
  longLine: number;
}

/**
 * Bytes read at a time. Small enough that each read's text and lines are ordinary young objects: a
 * MiB's text is a large object, which only a full collection frees, so a long file's garbage
 * piled up in the old generation (more memory, and more CPU, than 64 KiB reads).
 */
const CHUNK = 64 * 1024;

function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function bounded(line: string, maxLength: number): string | LongLine {
  return line.length > maxLength ? { longLine: line.length } : withoutCr(line);
}

/**
 * The lines of a UTF-8 file, in batches (the lines each read completed), without their line ends
 * (`\n` or `\r\n`); the last line is given even without a line end. Cheaper than `readline`: one
 * read per 64 KiB (the next one under way while this one's lines are used) and a plain split, no event
 * per line. A line over `maxLength` is given as a {@link LongLine} and never held whole, so memory
 * holds one chunk and at most `maxLength` of a line whatever the file holds (`readline` builds any
 * line whole, and one over V8's largest string ends the process).
 * @param maxLength - the longest line given as text. @default MAX_LINE_LENGTH
 * @example for await (const lines of readLines(file)) for (const line of lines) if (typeof line === 'string') use(line);
 */
export async function* readLines(
  file: string,
  maxLength = MAX_LINE_LENGTH,
): AsyncGenerator<Array<string | LongLine>> {
  const handle = await open(file, 'r');
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  const readInto = (buffer: Buffer) => handle.read(buffer, 0, CHUNK, null);
  let pending: ReturnType<typeof readInto> | undefined;
  try {
    const decoder = new StringDecoder('utf8');
    // the start of the line not ended yet, as read (joined once, when it ends: a line over many
    // reads is copied once, not once per read)
    let rest: string[] = [];
    let restLength = 0;
    // the characters of a line over the bound read so far (0: none is being skipped)
    let skipping = 0;
    pending = readInto(buffers[0] as Buffer);
    for (let turn = 1; ; turn++) {
      const { bytesRead, buffer } = await pending;
      pending = undefined;
      if (bytesRead === 0) break;
      let text = decoder.write(buffer.subarray(0, bytesRead));
      pending = readInto(buffers[turn % 2] as Buffer);
      const batch: Array<string | LongLine> = [];
      if (skipping > 0) {
        const end = text.indexOf('\n');
        if (end === -1) {
          skipping += text.length;
          continue;
        }
        batch.push({ longLine: skipping + end });
        skipping = 0;
        text = text.slice(end + 1);
      }
      const lines = text.split('\n');
      const last = lines.pop() as string;
      if (lines.length > 0) {
        if (restLength > 0) lines[0] = rest.join('') + lines[0];
        rest = [];
        restLength = 0;
      }
      if (last !== '') {
        rest.push(last);
        restLength += last.length;
      }
      if (restLength > maxLength) {
        skipping = restLength;
        rest = [];
        restLength = 0;
      }
      for (const line of lines) batch.push(bounded(line, maxLength));
      if (batch.length > 0) yield batch;
    }
    const end = rest.join('') + decoder.end();
    if (skipping > 0) yield [{ longLine: skipping + end.length }];
    else if (end !== '') yield [bounded(end, maxLength)];
  } finally {
    await pending?.catch(() => undefined);
    await handle.close();
  }
}
