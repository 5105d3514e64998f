import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { LineSplitter, type LongLine } from './lineSplitter.js';

export type { LongLine } from './lineSplitter.js';

/**
 * Longest line scan reads: 64 Mi characters (at least 64 MiB), the hooks' own event limit. A longer
 * one is skipped unread.
 */
export const MAX_LINE_LENGTH = 64 * 1024 * 1024;

/** Bytes read at a time: big reads, few system calls. */
const READ = 1024 * 1024;

/**
 * Bytes decoded into text at a time. Small enough that each piece's text and lines are ordinary
 * young objects: a MiB's text is a large object, which only a full collection frees, so a long
 * file's garbage piled up in the old generation (more memory, and more CPU).
 */
const PIECE = 64 * 1024;

/**
 * The lines of a UTF-8 file, in batches (the lines each 64 KiB completed), without their line ends
 * (`\n` or `\r\n`); the last line is given even without a line end. Cheaper than `readline`: one
 * read per MiB and a plain split, no event per line. The reads are synchronous: a scan reads on
 * worker threads that have nothing else to do, and an asynchronous read waits for a thread of
 * libuv's pool, which on a busy machine left a scan worker idle ≈ 10 % of its time. A line over
 * `maxLength` is given as a {@link LongLine} and never held whole, so memory holds one chunk and at
 * most `maxLength` of a line whatever the file holds (`readline` builds any line whole, and one over
 * V8's largest string ends the process).
 * @param maxLength - the longest line given as text. @default MAX_LINE_LENGTH
 * @example for await (const lines of readLines(file)) for (const line of lines) if (typeof line === 'string') use(line);
 */
export async function* readLines(
  file: string,
  maxLength = MAX_LINE_LENGTH,
): AsyncGenerator<Array<string | LongLine>> {
  const handle = openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(READ);
  try {
    const decoder = new StringDecoder('utf8');
    const lines = new LineSplitter(maxLength);
    for (;;) {
      const bytesRead = readSync(handle, buffer, 0, READ, null);
      if (bytesRead === 0) break;
      for (let from = 0; from < bytesRead; from += PIECE) {
        const batch = lines.push(decoder.write(buffer.subarray(from, Math.min(from + PIECE, bytesRead))));
        if (batch.length > 0) yield batch;
      }
    }
    const last = lines.end(decoder.end());
    if (last.length > 0) yield last;
  } finally {
    closeSync(handle);
  }
}
