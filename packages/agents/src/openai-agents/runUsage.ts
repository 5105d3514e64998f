import { numberOf } from '@loopguard/core/internal';
import { type UsageRecord, usageRecordOf } from '@loopguard/core/spend';

/** What the adapter reads of the SDK's `RunContext.usage`: the run's totals so far. */
interface UsageTotals {
  requests?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** One entry per response: `cached_tokens` is the part of its input read from the cache. */
  inputTokensDetails?: ReadonlyArray<Record<string, number>>;
}

interface Seen {
  requests: number;
  input: number;
  output: number;
  cached: number;
}

/**
 * The usage the OpenAI Agents SDK adds to a run's `RunContext.usage` after each model response,
 * read as what it gained since the last look at the same context: input tokens (the
 * `cached_tokens` of `inputTokensDetails` taken out as cache reads), output tokens (reasoning
 * included). A context seen for the first time counts from zero; totals that went down (a context
 * reused after a reset) count from there afresh: nothing is counted twice.
 */
export class RunUsage {
  private readonly seen = new WeakMap<object, Seen>();

  /**
   * The usage `context.usage` gained since the last call for that context, as one record of `model`
   * (the agent's model name; absent or not a string: its cost is unknown), or `undefined` when it gained nothing.
   * @example new RunUsage().since(runContext, 'gpt-5'); // { model: 'gpt-5', inputTokens: 400, cacheReadTokens: 600, outputTokens: 50, ... }
   */
  since(context: unknown, model: unknown): UsageRecord | undefined {
    if (context === null || typeof context !== 'object') return undefined;
    const usage = (context as { usage?: UsageTotals }).usage;
    if (usage === null || typeof usage !== 'object') return undefined;
    const now: Seen = {
      requests: numberOf(usage.requests),
      input: numberOf(usage.inputTokens),
      output: numberOf(usage.outputTokens),
      cached: (Array.isArray(usage.inputTokensDetails) ? usage.inputTokensDetails : []).reduce(
        (sum: number, details) => sum + numberOf(details?.cached_tokens),
        0,
      ),
    };
    const before = this.seen.get(context) ?? { requests: 0, input: 0, output: 0, cached: 0 };
    const reset = now.requests < before.requests || now.input < before.input || now.output < before.output;
    const from = reset ? { requests: 0, input: 0, output: 0, cached: 0 } : before;
    this.seen.set(context, now);
    if (now.requests === from.requests && now.input === from.input && now.output === from.output)
      return undefined;
    const cached = Math.max(0, now.cached - from.cached);
    return usageRecordOf({
      model,
      inputTokens: now.input - from.input - cached,
      cacheReadTokens: cached,
      outputTokens: now.output - from.output,
    });
  }
}
