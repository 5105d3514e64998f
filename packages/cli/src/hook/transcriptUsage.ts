import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { numberOf, recordOf } from '@loopguard/core/internal';
import { anthropicUsage, type UsageRecord, usageRecordOf } from '@loopguard/core/spend';
import { geminiChatUsage } from '@loopguard/core/steps';
import type { HookAgent } from './hookEvent.js';

/** Most bytes of a transcript one hook call reads; the rest is read by the next calls. */
export const MAX_TRANSCRIPT_READ_BYTES = 8 * 1024 * 1024;

/** The usage records a transcript gained since `offset`, and where the next read starts. */
export interface TranscriptUsage {
  records: UsageRecord[];
  offset: number;
}

/**
 * Reads the replies the agent appended to its transcript (JSONL, `transcript_path`) since `offset`
 * ({@link usageOfLines}). Only whole lines are read; a line cut at the end is read again next time. A file shorter than
 * `offset` (rewritten) is read from the start: the ledger's reply ids keep its replies from counting twice.
 * @throws Error naming the path when it is not a regular file or cannot be read (the caller fails open).
 */
export function readTranscriptUsage(
  path: string,
  offset: number,
  agent: HookAgent,
  maxBytes = MAX_TRANSCRIPT_READ_BYTES,
  model?: string,
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
    return { records: usageOfLines(buffer.toString('utf8', 0, end), agent, model), offset: start + end + 1 };
  } finally {
    closeSync(fd);
  }
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
 * One reply's usage from a Codex rollout's `token_count` event. Its id is the event's time: a
 * fork's or a subagent's rollout that copies the parent's history copies its events with their
 * time, so a ledger that saw them (the project's day) counts them once.
 */
function codexTokenCount(record: Record<string, unknown>, model?: string): UsageRecord | undefined {
  const payload = recordOf(record.payload);
  if (record.type !== 'event_msg' || payload?.type !== 'token_count') return undefined;
  const last = recordOf(recordOf(payload.info)?.last_token_usage);
  if (last === undefined) return undefined;
  const cached = numberOf(last.cached_input_tokens);
  const at = typeof record.timestamp === 'string' ? Date.parse(record.timestamp) : undefined;
  return usageRecordOf({
    replyId: typeof record.timestamp === 'string' ? `codex:${record.timestamp}` : undefined,
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
  for (const line of text.split('\n')) {
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
