import { anthropicUsage, type UsageRecord, usageRecordOf } from './usageRecord.js';

/** The token counts reconciled at a `result` (a record's four counts). */
type Counts = Pick<UsageRecord, 'inputTokens' | 'outputTokens' | 'cacheCreationTokens' | 'cacheReadTokens'>;
const KINDS = ['inputTokens', 'outputTokens', 'cacheCreationTokens', 'cacheReadTokens'] as const;
/** Result ids remembered, to drop a `result` reported again. */
const MAX_REMEMBERED_RESULTS = 64;

const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const zero = (): Counts => ({ inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0 });

/**
 * The usage of one Claude Code invocation's events, the same in `claude -p --output-format
 * stream-json` and in the Claude Agent SDK's messages, counted right and never twice:
 * - each `assistant` event gives its reply's `message.usage` (the ledger counts a `message.id` once).
 *   Claude Code (2.1.330, recorded offline) passes the usage of the reply's start: the input and
 *   cache counts are final, the output count is the start's (often 1);
 * - the invocation's `result` event carries its final totals in `usage` (this invocation only, also
 *   on a resumed session; `modelUsage` and `total_cost_usd` add up the resumed session's earlier
 *   invocations, so they are not read). At the `result` the reader gives what it says beyond what the
 *   invocation's replies gave, count by count (never below 0), as an `adjustment` of the replies
 *   already counted, priced as their model when they named one model, else its cost is unknown;
 * - an invocation starts at `system`/`init` or at the first reply after a `result`; a `result`
 *   reported again (the same `uuid`, or with no reply between) gives nothing more.
 * Anything else gives none. Never throws.
 * @example
 * const usage = new ClaudeRunUsage();
 * usage.event({ type: 'assistant', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 10, output_tokens: 1 } } }, 0); // 10 in, 1 out
 * usage.event({ type: 'result', usage: { input_tokens: 10, output_tokens: 12 } }, 0); // 11 more out
 */
export class ClaudeRunUsage {
  private counted: Counts = zero();
  private replies = new Set<string>();
  private models = new Set<string | undefined>();
  private closed = false;
  private readonly results: string[] = [];

  /**
   * The usage records one event gives.
   * @param at - when the event was read, epoch ms; absent: when the records are counted.
   */
  event(event: unknown, at?: number): UsageRecord[] {
    const e = objectOf(event);
    if (e?.type === 'system' && e.subtype === 'init') this.open();
    else if (e?.type === 'assistant') return this.assistant(e.message, at);
    else if (e?.type === 'result') return this.result(e, at);
    return [];
  }

  private open(): void {
    this.counted = zero();
    this.replies = new Set();
    this.models = new Set();
    this.closed = false;
  }

  private assistant(message: unknown, at: number | undefined): UsageRecord[] {
    const record = anthropicUsage(message, at);
    if (record === undefined) return [];
    if (this.closed) this.open();
    if (record.replyId === undefined || !this.replies.has(record.replyId)) {
      if (record.replyId !== undefined) this.replies.add(record.replyId);
      for (const kind of KINDS) this.counted[kind] += record[kind];
      this.models.add(record.model);
    }
    return [record];
  }

  private result(e: Record<string, unknown>, at: number | undefined): UsageRecord[] {
    const usage = objectOf(e.usage);
    if (usage === undefined) return [];
    const id = typeof e.uuid === 'string' && e.uuid !== '' ? e.uuid : undefined;
    if (id !== undefined) {
      if (this.results.includes(id)) return [];
      this.results.unshift(id);
      this.results.length = Math.min(this.results.length, MAX_REMEMBERED_RESULTS);
    }
    const final = usageRecordOf({
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheCreationTokens: usage.cache_creation_input_tokens,
      cacheReadTokens: usage.cache_read_input_tokens,
    });
    const more = zero();
    for (const kind of KINDS) {
      more[kind] = Math.max(0, final[kind] - this.counted[kind]);
      this.counted[kind] += more[kind];
    }
    this.closed = true;
    if (KINDS.every((kind) => more[kind] === 0)) return [];
    const [model] = this.models.size === 1 ? this.models : [undefined];
    return [{ ...usageRecordOf({ ...more, model, at }), adjustment: true }];
  }
}
