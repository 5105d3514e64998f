/**
 * The tokens of one API reply, as an agent or SDK reports them. Every count is a non-negative
 * integer once it went through {@link usageRecordOf}.
 */
export interface UsageRecord {
  /** The API reply's id (Claude's `message.id`, a step id): a reply is counted once. Absent: never deduplicated. */
  replyId?: string;
  /** The model that answered; absent or unknown to the price book: its cost is unknown. */
  model?: string;
  /** Input tokens not read from or written to a cache. */
  inputTokens: number;
  /** Output tokens (including reasoning). */
  outputTokens: number;
  /** Input tokens written to the prompt cache. */
  cacheCreationTokens: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens: number;
  /** When the reply arrived, epoch ms; absent: when it was counted. */
  at?: number;
  /**
   * The counts add to replies already counted (their final counts, reported later, as Claude Code's
   * `result`): tokens and cost, not a reply of its own. Absent: a reply.
   */
  adjustment?: true;
}

/** A count as reported: a finite number at or above 0, else 0 (missing, negative, `NaN`, a string). */
function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * A {@link UsageRecord} from loosely typed fields: a count that is missing, negative or not a
 * number counts as 0, a blank reply id or model as absent, a time that is not finite as absent.
 * Never throws.
 * @example usageRecordOf({ inputTokens: -5, outputTokens: 12, replyId: 'msg_1' }); // { inputTokens: 0, outputTokens: 12, ... }
 */
export function usageRecordOf(fields: Partial<Record<keyof UsageRecord, unknown>>): UsageRecord {
  const record: UsageRecord = {
    inputTokens: countOf(fields.inputTokens),
    outputTokens: countOf(fields.outputTokens),
    cacheCreationTokens: countOf(fields.cacheCreationTokens),
    cacheReadTokens: countOf(fields.cacheReadTokens),
  };
  if (typeof fields.replyId === 'string' && fields.replyId !== '') record.replyId = fields.replyId;
  if (typeof fields.model === 'string' && fields.model !== '') record.model = fields.model;
  if (typeof fields.at === 'number' && Number.isFinite(fields.at)) record.at = fields.at;
  return record;
}

/**
 * The usage of an Anthropic Messages API reply (`input_tokens`, `output_tokens`,
 * `cache_creation_input_tokens`, `cache_read_input_tokens`), as Claude Code's transcripts and
 * stream and the Claude Agent SDK carry it.
 * @example anthropicUsage({ id: 'msg_1', model: 'claude-sonnet-4-5', usage: { input_tokens: 3, output_tokens: 9 } });
 */
export function anthropicUsage(message: unknown, at?: number): UsageRecord | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  const { id, model, usage } = message as Record<string, unknown>;
  if (usage === null || typeof usage !== 'object') return undefined;
  const u = usage as Record<string, unknown>;
  return usageRecordOf({
    replyId: id,
    model,
    at,
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    cacheCreationTokens: u.cache_creation_input_tokens,
    cacheReadTokens: u.cache_read_input_tokens,
  });
}

/** All the tokens of a record (input, output and both cache counts). */
export function tokensOf(record: UsageRecord): number {
  return record.inputTokens + record.outputTokens + record.cacheCreationTokens + record.cacheReadTokens;
}
