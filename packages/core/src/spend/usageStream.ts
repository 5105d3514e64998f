import { numberOf, recordOf } from '../kernel/jsonValues.js';
import { ClaudeRunUsage } from './claudeRunUsage.js';
import { type UsageRecord, usageRecordOf } from './usageRecord.js';

/** The agent output formats whose usage records {@link usageStream} reads (`loopguard run --agent-stream`). */
export type UsageStreamFormat = 'claude' | 'codex' | 'gemini' | 'jsonl';

/**
 * A reader of one agent output stream: each event in, the usage records it carries out (in order).
 * - `claude` (`claude -p --output-format stream-json`): {@link ClaudeRunUsage}, each `assistant`
 *   event's `message.usage`, then at each `result` what its final counts per model add (the output count);
 * - `codex` (`codex exec --json`): `turn.completed`'s `usage` (`input_tokens` includes
 *   `cached_input_tokens`); the stream names no model, so its cost is unknown;
 * - `gemini` (`gemini --output-format stream-json`): the final `result` event's `stats.models`, one
 *   record per model (`input` uncached, `cached` read from the cache), only at the end of the run;
 * - `jsonl`: any event with a `usage` object in Anthropic's names (`input_tokens`, `output_tokens`,
 *   `cache_creation_input_tokens`, `cache_read_input_tokens`) or OpenAI's (`prompt_tokens`,
 *   `completion_tokens`), with `id` and `model` beside it.
 * Anything else gives none. Never throws. The reader of `claude` keeps state: one reader per stream.
 * @example usageStream('codex')({ type: 'turn.completed', usage: { input_tokens: 40, cached_input_tokens: 10, output_tokens: 20 } }, Date.now());
 */
export function usageStream(format: UsageStreamFormat): (event: unknown, at: number) => UsageRecord[] {
  if (format === 'claude') {
    const claude = new ClaudeRunUsage();
    return (event, at) => claude.event(event, at);
  }
  return (event, at) => statelessUsage(format, event, at);
}

function statelessUsage(
  format: Exclude<UsageStreamFormat, 'claude'>,
  event: unknown,
  at: number,
): UsageRecord[] {
  const e = recordOf(event);
  if (e === undefined) return [];
  switch (format) {
    case 'codex': {
      const usage = recordOf(e.usage);
      if (e.type !== 'turn.completed' || usage === undefined) return [];
      const cached = numberOf(usage.cached_input_tokens);
      return [
        usageRecordOf({
          at,
          inputTokens: numberOf(usage.input_tokens) - cached,
          cacheReadTokens: cached,
          cacheCreationTokens: usage.cache_write_input_tokens,
          outputTokens: usage.output_tokens,
        }),
      ];
    }
    case 'gemini': {
      const models = recordOf(recordOf(e.stats)?.models);
      if (e.type !== 'result' || models === undefined) return [];
      return Object.entries(models).map(([model, value]) => {
        const stats = recordOf(value) ?? {};
        const cached = numberOf(stats.cached);
        return usageRecordOf({
          model,
          at,
          inputTokens: stats.input ?? numberOf(stats.input_tokens) - cached,
          cacheReadTokens: cached,
          outputTokens: stats.output_tokens,
        });
      });
    }
    case 'jsonl': {
      const usage = recordOf(e.usage);
      if (usage === undefined) return [];
      return [
        usageRecordOf({
          replyId: e.id,
          model: e.model,
          at,
          inputTokens: usage.input_tokens ?? usage.prompt_tokens,
          outputTokens: usage.output_tokens ?? usage.completion_tokens,
          cacheCreationTokens: usage.cache_creation_input_tokens,
          cacheReadTokens: usage.cache_read_input_tokens,
        }),
      ];
    }
  }
}
