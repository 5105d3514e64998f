import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { anthropicUsage, type UsageRecord } from '@loopguard/core/spend';

/** Most bytes of a transcript one hook call reads; the rest is read by the next calls. */
export const MAX_TRANSCRIPT_READ_BYTES = 8 * 1024 * 1024;

/** The usage records a transcript gained since `offset`, and where the next read starts. */
export interface TranscriptUsage {
  records: UsageRecord[];
  offset: number;
}

/**
 * Reads the replies Claude Code appended to its transcript (JSONL) since `offset`: every
 * `assistant` record's `message.usage`, with `message.id` (a reply is written as one record per
 * content block: the ledger counts the id once), `message.model` and the record's `timestamp`.
 * Only whole lines are read; a line cut at the end is read again next time. A file shorter than
 * `offset` (rewritten) is read from the start: the ledger's reply ids keep its replies from counting twice.
 * @throws Error naming the path when it is not a regular file or cannot be read (the caller fails open).
 */
export function readTranscriptUsage(
  path: string,
  offset: number,
  maxBytes = MAX_TRANSCRIPT_READ_BYTES,
): TranscriptUsage {
  // O_NONBLOCK: a FIFO given as the transcript must not hang the hook.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`transcript ${path} is not a regular file`);
    const start = offset <= stat.size ? offset : 0;
    const length = Math.min(stat.size - start, maxBytes);
    if (length <= 0) return { records: [], offset: start };
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, start);
    const end = buffer.lastIndexOf(10, read - 1);
    // A line longer than the whole read is skipped (no reply is that long): go past it.
    if (end === -1) return { records: [], offset: read === maxBytes ? start + read : start };
    return { records: usageOfLines(buffer.toString('utf8', 0, end)), offset: start + end + 1 };
  } finally {
    closeSync(fd);
  }
}

/** The usage records of JSONL text; lines that are not JSON or not replies are skipped. */
export function usageOfLines(text: string): UsageRecord[] {
  const records: UsageRecord[] = [];
  for (const line of text.split('\n')) {
    // Most lines are tool results and user text: parse only what can be a reply with usage.
    if (!line.includes('"assistant"') || !line.includes('"usage"')) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (record === null || typeof record !== 'object') continue;
    const { type, message, timestamp, isApiErrorMessage } = record as Record<string, unknown>;
    if (type !== 'assistant' || isApiErrorMessage === true) continue;
    const at = typeof timestamp === 'string' ? Date.parse(timestamp) : undefined;
    const usage = anthropicUsage(message, at);
    if (usage !== undefined) records.push(usage);
  }
  return records;
}
