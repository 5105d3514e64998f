import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordOf } from '@loopguard/core/internal';
import { MAX_TRANSCRIPT_READ_BYTES } from './transcriptUsage.js';

/**
 * Longest wait for the reply an event follows to reach the transcript, ms. Claude Code 2.1.330
 * writes its transcript a little after it calls the hooks of a fast path (`mcp_tool`): the waits
 * took 1 to 83 ms in the offline runs. A transcript that never shows the reply costs each call this long.
 */
export const REPLY_WAIT_MS = 1000;

/** Pause between two looks at the transcript, ms. */
const POLL_MS = 10;

/**
 * How far before `from` the wait looks too, bytes: a reply that asked for several tool calls at
 * once was read (and counted) at the first call's event; the others find their marker just before
 * the offset, and must not wait for it.
 */
export const LOOKBACK_BYTES = 1024 * 1024;

/**
 * Waits until the transcript at `path` holds `marker` in a reply's record (a whole `assistant` line)
 * after byte `from` (the bytes the spend guard has not read yet) or in the `lookbackBytes` before it
 * ({@link LOOKBACK_BYTES}; 0 for a reply no earlier event could have read), so that the guard counts
 * the reply the event follows however early the CLI called the hook. The marker elsewhere (a tool's
 * result, whose text the model chooses, written before the reply) does not end the wait. Reads only
 * the bytes added since its last look (at most {@link MAX_TRANSCRIPT_READ_BYTES} after `from` in all:
 * past that there is plenty to count).
 * @returns `true` when the marker is there; `false` at `timeoutMs`, or when the transcript cannot be
 *   read (the spend guard's own read then fails open and logs it).
 */
export async function waitForReply(
  path: string,
  from: number,
  marker: string,
  timeoutMs = REPLY_WAIT_MS,
  lookbackBytes = LOOKBACK_BYTES,
): Promise<boolean> {
  const needle = Buffer.from(marker, 'utf8');
  const deadline = performance.now() + timeoutMs;
  const file = await openTranscript(path);
  if (file === undefined) return false;
  try {
    if (!(await file.stat()).isFile()) return false;
    let scanned = Math.max(0, from - lookbackBytes);
    // the line the last read ended in, not yet whole (a first one cut by the lookback parses as no reply)
    let partial = Buffer.alloc(0);
    for (;;) {
      const size = (await file.stat()).size;
      if (size < scanned) {
        // rewritten: look again from the start
        scanned = 0;
        partial = Buffer.alloc(0);
      }
      const length = Math.min(size - scanned, MAX_TRANSCRIPT_READ_BYTES);
      if (length > 0) {
        const { buffer, bytesRead } = await file.read(Buffer.alloc(length), 0, length, scanned);
        const seen = Buffer.concat([partial, buffer.subarray(0, bytesRead)]);
        const end = seen.lastIndexOf(10) + 1;
        if (
          inReplyLine(seen.subarray(0, end), needle) ||
          scanned + bytesRead - from >= MAX_TRANSCRIPT_READ_BYTES
        )
          return true;
        scanned += bytesRead;
        partial = seen.subarray(end);
      }
      if (performance.now() >= deadline) return false;
      await sleep(POLL_MS);
    }
  } finally {
    await file.close();
  }
}

/** Whether one of the whole lines in `lines` holds `needle` and is a reply's record ({@link replyIdOf}). */
function inReplyLine(lines: Buffer, needle: Buffer): boolean {
  for (let at = lines.indexOf(needle); at !== -1; ) {
    const start = lines.lastIndexOf(10, at) + 1;
    const end = lines.indexOf(10, at);
    if (replyIdOf(lines.toString('utf8', start, end)) !== undefined) return true;
    at = lines.indexOf(needle, end);
  }
  return false;
}

/** How much before its end {@link endsWithReadReply} reads: a reply's records, not a whole turn. */
const LAST_REPLY_BYTES = 256 * 1024;

/**
 * Whether a Claude Code transcript ends with a turn's last reply that the spend guard has read: the
 * file is `read` bytes long (nothing was written after what was read) and its last records are one
 * reply (`assistant` records of one `message.id`) that holds `marker`. Then a `Stop` need not wait
 * for that reply: another event read it (loopguard's second hook entry, a background subagent's
 * event reading the session's transcript), and its usage was counted in the same transaction. An
 * earlier turn's reply with the same words is never the transcript's end at a later turn's `Stop`:
 * Claude Code writes what starts a turn (the prompt, a queued notification) and what ends one (its
 * Stop hooks' summary) around each reply.
 * @returns `false` when unsure (anything else, a file that cannot be read): the caller waits.
 */
export async function endsWithReadReply(path: string, read: number, marker: string): Promise<boolean> {
  const file = await openTranscript(path);
  if (file === undefined) return false;
  try {
    const info = await file.stat();
    if (!info.isFile() || info.size !== read || read === 0) return false;
    const start = Math.max(0, read - LAST_REPLY_BYTES);
    const { buffer, bytesRead } = await file.read(Buffer.alloc(read - start), 0, read - start, start);
    const lines = buffer.toString('utf8', 0, bytesRead).split('\n');
    // the read ends at a line's end; a partial first line (cut by the window) is never the reply's last
    if (lines.pop() !== '') return false;
    let reply: unknown;
    for (let i = lines.length - 1; i > (start === 0 ? -1 : 0); i--) {
      const line = lines[i] as string;
      const id = replyIdOf(line);
      if (id === undefined || (reply !== undefined && id !== reply)) return false;
      reply = id;
      if (line.includes(marker)) return true;
    }
    return false;
  } catch {
    return false;
  } finally {
    await file.close();
  }
}

/**
 * The transcript at `path` opened for reading, `undefined` when it cannot be. O_NONBLOCK: a FIFO
 * given as the transcript must not hang the hook (the callers read only a regular file).
 */
async function openTranscript(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

/** The `message.id` of a Claude Code `assistant` record (not an API error), else `undefined`. */
function replyIdOf(line: string): string | undefined {
  let record: Record<string, unknown> | undefined;
  try {
    record = recordOf(JSON.parse(line));
  } catch {
    return undefined;
  }
  if (record?.type !== 'assistant' || record.isApiErrorMessage === true) return undefined;
  const id = recordOf(record.message)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
