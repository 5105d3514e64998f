import { AIMessage, type BaseMessage, type UsageMetadata } from '@langchain/core/messages';
import { type UsageRecord, usageRecordOf } from '@loopguard/core/spend';

/**
 * The usage LangChain reports for each model reply among `messages`: an `AIMessage`'s
 * `usage_metadata` (`input_tokens` counts every input token: the cache reads and writes of
 * `input_token_details` are taken out of it; `output_tokens` includes reasoning), its `id` (a reply
 * counts once) and the model its `response_metadata` names (`model_name`, or `model`). A reply
 * without `usage_metadata` (a model integration that reports none) gives no record.
 * @example messageUsage([new AIMessage({ content: 'hi', id: 'r1', usage_metadata: { input_tokens: 10, output_tokens: 2, total_tokens: 12 } })]);
 */
export function messageUsage(messages: readonly BaseMessage[]): UsageRecord[] {
  const records: UsageRecord[] = [];
  for (const message of messages) {
    if (!AIMessage.isInstance(message)) continue;
    // the SDK types the field through the message's structure: read it as the documented shape
    const { usage_metadata: usage, response_metadata: metadata = {} } = message as unknown as {
      usage_metadata?: UsageMetadata;
      response_metadata?: Record<string, unknown>;
    };
    if (usage === undefined) continue;
    const details = usage.input_token_details ?? {};
    const cacheRead = details.cache_read ?? 0;
    const cacheWrite = details.cache_creation ?? 0;
    records.push(
      usageRecordOf({
        replyId: (message as BaseMessage).id,
        model: metadata.model_name ?? metadata.model,
        inputTokens: (usage.input_tokens ?? 0) - cacheRead - cacheWrite,
        cacheReadTokens: cacheRead,
        cacheCreationTokens: cacheWrite,
        outputTokens: usage.output_tokens,
      }),
    );
  }
  return records;
}
