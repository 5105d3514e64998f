import { readSync } from 'node:fs';
import { numberOf, recordOf } from '@loopguard/core/internal';
import { anthropicUsage, type UsageRecord, usageRecordOf } from '@loopguard/core/spend';
import { geminiChatUsage } from '@loopguard/core/steps';
import { withRegularFile } from '../files/regularFile.js';
import type { HookAgent } from './hookEvent.js';

/** Most bytes of a transcript one hook call reads; the rest is read by the next calls. */
export const MAX_TRANSCRIPT_READ_BYTES = 8 * 1024 * 1024;

/** The usage records a transcript gained since `offset`, and where the next read starts. */
export interface TranscriptUsage {
  /** The usage records read, in order. */
  records: UsageRecord[];
  /** The byte offset read up to: the next read starts there. */
  offset: number;
}

/** Bytes a look into a run of NUL bytes reads (a sparse hole is skipped in O(log n) of them). */
const NUL_PROBE_BYTES = 64 * 1024;
/** Runs of NUL bytes (holes) one call goes past and reads on after; the next call goes on. */
const MAX_HOLES_A_CALL = 4;

/**
 * Reads the replies the agent appended to its transcript (JSONL, `transcript_path`) since `offset`
 * ({@link usageOfLines}). Only whole lines are read; a line cut at the end is read again next time. A file shorter than
 * `offset` (rewritten) is read from the start: the ledger's reply ids keep its replies from counting twice.
 * NUL bytes end a line (no JSON line holds one), and a read that ends in a run of them (a sparse
 * hole: `truncate -s +100G`) goes on after the run, so the replies written after a hole are counted
 * at this call, not 12,800 calls of {@link MAX_TRANSCRIPT_READ_BYTES} later.
 * @throws Error naming the path when it is not a regular file or cannot be read (the caller fails open).
 */
export function readTranscriptUsage(
  path: string,
  offset: number,
  agent: HookAgent,
  maxBytes = MAX_TRANSCRIPT_READ_BYTES,
  model?: string,
): TranscriptUsage {
  // without waiting: a FIFO given as the transcript must not hang the hook
  return withRegularFile(path, 'transcript', (fd, stat): TranscriptUsage => {
    const records: UsageRecord[] = [];
    let start = offset <= stat.size ? offset : 0;
    for (let holes = 0; ; holes++) {
      const length = Math.min(stat.size - start, maxBytes);
      if (length <= 0) return { records, offset: start };
      const buffer = Buffer.alloc(length);
      const read = readSync(fd, buffer, 0, length, start);
      if (read > 0 && buffer[read - 1] === 0) {
        // The read ends in a hole: its lines are whole, and the next starts where the NULs end.
        records.push(...usageOfLines(buffer.toString('utf8', 0, dataEnd(buffer, read)), agent, model));
        start = endOfNuls(fd, start + read, stat.size);
        if (holes < MAX_HOLES_A_CALL) continue;
        return { records, offset: start };
      }
      const end = Math.max(buffer.lastIndexOf(10, read - 1), buffer.lastIndexOf(0, read - 1));
      // A line longer than the whole read is skipped (no reply is that long): go past it.
      if (end === -1) return { records, offset: read === maxBytes ? start + read : start };
      records.push(...usageOfLines(buffer.toString('utf8', 0, end), agent, model));
      return { records, offset: start + end + 1 };
    }
  });
}

/** The end of the bytes before the run of NULs that ends `buffer`'s first `read` bytes. */
function dataEnd(buffer: Buffer, read: number): number {
  let end = read;
  while (end > 0 && buffer[end - 1] === 0) end--;
  return end;
}

/**
 * Where the run of NUL bytes that reaches `from` ends: the first byte after it that is not NUL, or
 * `size`. Gallops (steps doubling) to a look that finds data, then halves the gap, so a hole of
 * 100 GB costs about 60 reads of {@link NUL_PROBE_BYTES}. Data between two NUL runs that a step jumps
 * over is skipped, but never the file's last bytes, where the agent appends.
 */
function endOfNuls(fd: number, from: number, size: number): number {
  const probe = Buffer.alloc(NUL_PROBE_BYTES);
  /** The first byte at or after `at` in the next {@link NUL_PROBE_BYTES} that is not NUL, else -1. */
  const dataAt = (at: number) => {
    const read = readSync(fd, probe, 0, Math.min(NUL_PROBE_BYTES, size - at), at);
    const index = probe.subarray(0, read).findIndex((byte) => byte !== 0);
    return index === -1 ? -1 : at + index;
  };
  if (from >= size) return size;
  const first = dataAt(from);
  if (first !== -1) return first;
  // [low, low + probe) holds only NULs; the probe at `high` finds data, or `high` is the end.
  let low = from;
  let high = size;
  for (let step = NUL_PROBE_BYTES; low + step < size; step *= 2) {
    if (dataAt(low + step) !== -1) {
      high = low + step;
      break;
    }
    low += step;
  }
  while (high - low > NUL_PROBE_BYTES) {
    const middle = low + Math.floor((high - low) / 2);
    if (dataAt(middle) === -1) low = middle;
    else high = middle;
  }
  // The data starts within the probe at `high`, past the NULs of [low, high).
  if (high >= size) return size;
  const found = dataAt(high);
  return found === -1 ? high : found;
}

/** Where each agent's transcript records a reply's usage, and how it reads. */
const REPLIES: Record<
  HookAgent,
  { marks: string[]; usage(record: Record<string, unknown>, model?: string): UsageRecord | undefined }
> = {
  // Claude Code: every `assistant` record's `message.usage`, with `message.id` (a reply is written as
  // one record per content block), `message.model` and the record's `timestamp`.
  claude: {
    marks: ['"assistant"', '"usage"'],
    usage: ({ type, message, timestamp, isApiErrorMessage }) =>
      type !== 'assistant' || isApiErrorMessage === true
        ? undefined
        : anthropicUsage(message, typeof timestamp === 'string' ? Date.parse(timestamp) : undefined),
  },
  // Gemini CLI: its chat's model records (`tokens`, written again with the same `id` as they change),
  // read by its one translation.
  gemini: { marks: ['"gemini"', '"tokens"'], usage: geminiChatUsage },
  // Codex: its rollout's `token_count` events, one per reply (`last_token_usage`, whose input
  // includes the cached tokens), priced at the model the hook event names.
  codex: { marks: ['"token_count"', '"last_token_usage"'], usage: codexTokenCount },
};

/**
 * One reply's usage from a Codex rollout's `token_count` event. Its id is the event's time and the
 * thread's running total (`total_token_usage.total_tokens`): a fork's or a subagent's rollout that
 * copies the parent's history copies its events with both, so a ledger that saw them (the
 * project's day) counts them once, while two threads' replies of the same millisecond (parallel
 * subagents, two sessions of a project) are two (trust50). Not the `response_id` of Codex's
 * `token_usage_record`: the provider writes it (a local server may repeat one), and that record is
 * a separate line, which a read that starts between the two would not pair.
 */
function codexTokenCount(record: Record<string, unknown>, model?: string): UsageRecord | undefined {
  const payload = recordOf(record.payload);
  if (record.type !== 'event_msg' || payload?.type !== 'token_count') return undefined;
  const last = recordOf(recordOf(payload.info)?.last_token_usage);
  if (last === undefined) return undefined;
  const cached = numberOf(last.cached_input_tokens);
  const at = typeof record.timestamp === 'string' ? Date.parse(record.timestamp) : undefined;
  const total = recordOf(recordOf(payload.info)?.total_token_usage)?.total_tokens;
  const thread = typeof total === 'number' ? `:${total}` : '';
  return usageRecordOf({
    replyId: typeof record.timestamp === 'string' ? `codex:${record.timestamp}${thread}` : undefined,
    model,
    inputTokens: numberOf(last.input_tokens) - cached,
    cacheReadTokens: cached,
    cacheCreationTokens: last.cache_write_input_tokens,
    outputTokens: last.output_tokens,
    at,
  });
}

/**
 * The usage records of `agent`'s JSONL transcript text; lines that are not JSON or not replies are
 * skipped. `model`: the model of the replies whose record names none (Codex's, from its event). A reply written more than once keeps its id: the ledger counts it once.
 */
export function usageOfLines(text: string, agent: HookAgent, model?: string): UsageRecord[] {
  const { marks, usage } = REPLIES[agent];
  const records: UsageRecord[] = [];
  for (const line of text.split(text.includes('\0') ? /[\n\0]+/ : '\n')) {
    // Most lines are tool results and user text: parse only what can be a reply with usage.
    if (!marks.every((mark) => line.includes(mark))) continue;
    let record: Record<string, unknown> | undefined;
    try {
      record = recordOf(JSON.parse(line));
    } catch {
      continue;
    }
    const found = record === undefined ? undefined : usage(record, model);
    if (found !== undefined) records.push(found);
  }
  return records;
}
