import { type UsageRecord, usageRecordOf } from '@loopguard/core/spend';
import type { StepResult, ToolSet } from 'ai';

/** What {@link stepUsage} reads of a step. */
export type UsageOfStep = Partial<Pick<StepResult<ToolSet>, 'usage' | 'response' | 'model'>>;

/**
 * The usage the AI SDK reports for one step: `usage.inputTokenDetails` (uncached, cache read,
 * cache write; without details, the input total less the cache counts), `outputTokens` (reasoning
 * included), the response id (a step counts once) and the model id (for its price).
 * @example stepUsage(result.steps[0]); // [{ replyId: 'resp_1', model: 'gpt-5', inputTokens: 10, ... }]
 */
export function stepUsage(step: UsageOfStep): UsageRecord[] {
  const usage = step.usage;
  if (usage === undefined || usage === null) return [];
  const details = usage.inputTokenDetails ?? {};
  const cacheRead = details.cacheReadTokens ?? 0;
  const cacheWrite = details.cacheWriteTokens ?? 0;
  return [
    usageRecordOf({
      replyId: step.response?.id,
      model: step.response?.modelId ?? step.model?.modelId,
      at: step.response?.timestamp?.getTime?.(),
      inputTokens: details.noCacheTokens ?? (usage.inputTokens ?? 0) - cacheRead - cacheWrite,
      cacheReadTokens: cacheRead,
      cacheCreationTokens: cacheWrite,
      outputTokens: usage.outputTokens,
    }),
  ];
}
