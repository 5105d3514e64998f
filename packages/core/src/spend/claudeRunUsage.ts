import { recordOf } from '../kernel/jsonValues.js';
import { RecentSet } from '../kernel/RecentSet.js';
import { anthropicUsage, type UsageRecord, usageRecordOf } from './usageRecord.js';

/** A record's four token counts. */
type Counts = Pick<UsageRecord, 'inputTokens' | 'outputTokens' | 'cacheCreationTokens' | 'cacheReadTokens'>;
const KINDS = ['inputTokens', 'outputTokens', 'cacheCreationTokens', 'cacheReadTokens'] as const;
/** Reply and result ids remembered per kind (a {@link RecentSet} generation), and sessions kept, to count each once. */
const MAX_REMEMBERED = 2048;
const MAX_SESSIONS = 16;

const zero = (): Counts => ({ inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0 });
const isZero = (counts: Counts) => KINDS.every((kind) => counts[kind] === 0);

/**
 * The usage of Claude Code's events, the same in `claude -p --output-format stream-json` and in the
 * Claude Agent SDK's messages, counted right and never twice. Claude Code 2.1.330 (recorded offline):
 * - each `assistant` event (one per content block, a subagent's too) carries its reply's usage as
 *   the reply started: the input and cache counts are final, the output count is the start's (often 1);
 * - each `result` carries `model_usage_since_last_result`: per model, the final counts of every
 *   request since the process's previous `result` (a resumed session's earlier invocations left
 *   out, subagents and side requests in). Older releases without it: `usage`, the main thread's.
 *
 * So the replies count as they come (the ledger counts a `message.id` once), and each `result`
 * adds, per model and count, what it says beyond the replies of its session not yet covered by a
 * result (never below 0), as an `adjustment` (tokens and cost, no reply of its own). A model the
 * replies did not name takes what is left of their counts first, so the total never exceeds the
 * result's. A `result` seen again (its `uuid`, else its text) adds nothing. Never throws.
 * @example
 * const usage = new ClaudeRunUsage();
 * usage.event({ type: 'assistant', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 10, output_tokens: 1 } } }); // 10 in, 1 out
 * usage.event({ type: 'result', uuid: 'r1', model_usage_since_last_result: { m: { inputTokens: 10, outputTokens: 12 } } }); // 11 more out
 */
export class ClaudeRunUsage {
  /** Per session, per model: the replies' counts no `result` covered yet. */
  private readonly pending = new Map<string, Map<string | undefined, Counts>>();
  private readonly replies = new RecentSet<string>(MAX_REMEMBERED);
  private readonly results = new RecentSet<string>(MAX_REMEMBERED);

  /**
   * The usage records one event gives.
   * @param at - when the event was read, epoch ms; absent: when the records are counted.
   */
  event(event: unknown, at?: number): UsageRecord[] {
    const e = recordOf(event);
    if (e?.type === 'assistant') return this.assistant(e, at);
    if (e?.type === 'result') return this.result(e, at);
    return [];
  }

  private session(e: Record<string, unknown>): Map<string | undefined, Counts> {
    const id = typeof e.session_id === 'string' ? e.session_id : '';
    let models = this.pending.get(id);
    if (models === undefined) {
      models = new Map();
      this.pending.set(id, models);
      if (this.pending.size > MAX_SESSIONS) this.pending.delete(this.pending.keys().next().value as string);
    }
    return models;
  }

  private assistant(e: Record<string, unknown>, at: number | undefined): UsageRecord[] {
    const record = anthropicUsage(e.message, at);
    if (record === undefined) return [];
    if (record.replyId === undefined || this.replies.addNew(record.replyId)) {
      const models = this.session(e);
      const counts = models.get(record.model) ?? zero();
      for (const kind of KINDS) counts[kind] += record[kind];
      models.set(record.model, counts);
    }
    return [record];
  }

  private result(e: Record<string, unknown>, at: number | undefined): UsageRecord[] {
    const final = finalCounts(e);
    if (final === undefined) return [];
    const key = typeof e.uuid === 'string' && e.uuid !== '' ? e.uuid : JSON.stringify(e);
    if (!this.results.addNew(key)) return [];
    const pending = this.session(e);
    // the same model first, then what is left of the others' counts
    const order = (model: string | undefined) => [
      ...(pending.has(model) ? [model] : []),
      ...[...pending.keys()].filter((other) => other !== model),
    ];
    const records: UsageRecord[] = [];
    // `usage` names no model: the one model the replies named, if one
    const only = pending.size === 1 ? [...pending.keys()][0] : undefined;
    for (const [named, counts] of final) {
      const model = named ?? only;
      const more = { ...counts };
      for (const other of order(model)) {
        const left = pending.get(other) as Counts;
        for (const kind of KINDS) {
          const covered = Math.min(more[kind], left[kind]);
          more[kind] -= covered;
          left[kind] -= covered;
        }
        if (isZero(left)) pending.delete(other);
      }
      if (!isZero(more)) records.push({ ...usageRecordOf({ ...more, model, at }), adjustment: true });
    }
    return records;
  }
}

/** A result's final counts per model: `model_usage_since_last_result`, else `usage` (no model named). */
function finalCounts(e: Record<string, unknown>): [string | undefined, Counts][] | undefined {
  const perModel = recordOf(e.model_usage_since_last_result);
  if (perModel !== undefined) {
    return Object.entries(perModel).map(([model, value]) => {
      const u = recordOf(value) ?? {};
      const counts = usageRecordOf({
        inputTokens: u.inputTokens,
        outputTokens: u.outputTokens,
        cacheCreationTokens: u.cacheCreationInputTokens,
        cacheReadTokens: u.cacheReadInputTokens,
      });
      return [model, counts];
    });
  }
  const usage = recordOf(e.usage);
  if (usage === undefined) return undefined;
  const counts = usageRecordOf({
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheCreationTokens: usage.cache_creation_input_tokens,
    cacheReadTokens: usage.cache_read_input_tokens,
  });
  return [[undefined, counts]];
}
