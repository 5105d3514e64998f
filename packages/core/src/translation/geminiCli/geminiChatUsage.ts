import { numberOf, recordOf } from '../../kernel/jsonValues.js';
import { type UsageRecord, usageRecordOf } from '../../spend/usageRecord.js';

/**
 * The usage of one model (`gemini`) record of a Gemini CLI chat (`chats/session-*.jsonl`, checked
 * against 0.61.0), for every door that reads the chat (`scan`, the hooks through `transcript_path`):
 * its `tokens` (`input` includes the `cached` part, `thoughts` are billed as output), its `id` (the
 * record is written again when it changes: a ledger counts the id once), its `model` and
 * `timestamp`. `undefined` for any other record, or a reply without `tokens`. Never throws.
 * @example geminiChatUsage({ type: 'gemini', id: 'a1', model: 'gemini-2.5-flash', tokens: { input: 100, cached: 40, output: 7 } });
 * // { replyId: 'a1', model: 'gemini-2.5-flash', inputTokens: 60, cacheReadTokens: 40, outputTokens: 7, cacheCreationTokens: 0 }
 */
export function geminiChatUsage(record: Record<string, unknown>): UsageRecord | undefined {
  const tokens = recordOf(record.tokens);
  if (record.type !== 'gemini' || tokens === undefined) return undefined;
  const cached = numberOf(tokens.cached);
  const at = typeof record.timestamp === 'string' ? Date.parse(record.timestamp) : undefined;
  return usageRecordOf({
    replyId: record.id,
    model: record.model,
    at,
    inputTokens: numberOf(tokens.input) - cached,
    cacheReadTokens: cached,
    outputTokens: numberOf(tokens.output) + numberOf(tokens.thoughts),
  });
}
