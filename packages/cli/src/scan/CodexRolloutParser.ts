import { numberOf, recordOf } from '@loopguard/core/internal';
import { usageRecordOf } from '@loopguard/core/spend';
import { CodexRolloutSteps } from '@loopguard/core/steps';
import { codexGuardVerdicts } from './guardVerdicts.js';
import { HeldCall } from './heldCall.js';
import {
  NOTHING,
  noteStart,
  type SessionMeta,
  type TranscriptParser,
  type TranscriptRead,
  timeOf,
} from './TranscriptParser.js';

/** How a record's type begins. */
const TYPE_KEY = '"type":"';

/** The record types that give a step, a model or the session's header (an event: only a token count). */
const TYPES_THAT_MATTER = new Set(['response_item', 'session_meta', 'turn_context']);

/** An event whose payload's first key is its type: what follows is that type. */
const EVENT_HEAD = '"type":"event_msg","payload":{"type":"';

/** The string value that begins at `from`; undefined when it is written with an escape or not closed. */
function typeAt(line: string, from: number): string | undefined {
  const end = line.indexOf('"', from);
  const type = line.slice(from, end);
  return end === -1 || type.includes('\\') ? undefined : type;
}

/**
 * A Codex rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, checked against 0.169.0): each
 * line is `{ timestamp, type, payload }`; a subagent's (its `session_meta` names a
 * `parent_thread_id`) is its own run, under that session, as the hooks record it. The `response_item`s are read by Codex's one translation
 * ({@link CodexRolloutSteps}: calls are actions, their outputs observations, the agent's last
 * message of a turn a message); the `event_msg` copies of items are not steps. Tokens come from
 * the `token_count` events (the growth of the session's total). loopguard's own nudges and stops
 * (a hook's context, a denial) are noted as such ({@link codexGuardVerdicts}); a call it refused
 * (the model's own against loopguard) is counted, never observed.
 */
export class CodexRolloutParser implements TranscriptParser {
  readonly agent = 'codex';
  readonly format = 'codex-rollout';
  readonly meta: SessionMeta = { hasUsage: false };
  private totalTokens = 0;
  /** The model of the current turn (`turn_context`), for the price of its tokens. */
  private model: string | undefined;
  private readonly steps = new CodexRolloutSteps();
  /** A call's action not given yet: its output may say loopguard refused it. */
  private readonly calls = new HeldCall();

  /**
   * Only items, token counts and the session's header matter. Codex writes a record's `type` in its
   * first keys, before the payload, and a payload's own `type` as its first key: once the session's
   * start is known (the one thing `push` reads from any record), a record is answered from its type
   * (an event from its payload's), without a search through the whole line (an event can carry a
   * command's whole output) for four words. A type written with an escape, or after an object
   * opened, is not read here: the search answers.
   */
  mayMatter(line: string): boolean {
    const at = line.indexOf(TYPE_KEY);
    // no object opened before it: the record's own type, not a payload's
    if (at !== -1 && this.meta.startedAt !== undefined && line.lastIndexOf('{', at) === 0) {
      const type = typeAt(line, at + TYPE_KEY.length);
      if (type !== undefined && type !== 'event_msg') return TYPES_THAT_MATTER.has(type);
      if (type === 'event_msg' && line.startsWith(EVENT_HEAD, at)) {
        const event = typeAt(line, at + EVENT_HEAD.length);
        if (event !== undefined) return event === 'token_count';
      }
    }
    return (
      line.includes('"response_item"') ||
      line.includes('"token_count"') ||
      line.includes('"session_meta"') ||
      line.includes('"turn_context"')
    );
  }

  push(record: Record<string, unknown>): TranscriptRead {
    const payload = recordOf(record.payload);
    if (payload === undefined) return NOTHING;
    noteStart(this.meta, record.timestamp);
    switch (record.type) {
      case 'session_meta':
        if (typeof payload.id === 'string') this.meta.sessionId ??= payload.id;
        if (typeof payload.cwd === 'string') this.meta.project ??= payload.cwd;
        // a subagent's rollout names the thread that spawned it: its run is that session's
        if (typeof payload.parent_thread_id === 'string' && payload.parent_thread_id !== '')
          this.meta.parentSessionId ??= payload.parent_thread_id;
        return NOTHING;
      case 'turn_context':
        if (typeof payload.model === 'string' && payload.model !== '') this.model = payload.model;
        return NOTHING;
      case 'response_item':
        return this.responseItem(payload);
      case 'event_msg':
        return payload.type === 'token_count' ? this.tokenCount(payload, record.timestamp) : NOTHING;
      default:
        return NOTHING;
    }
  }

  end(): TranscriptRead {
    return { steps: [...this.calls.give([]), ...this.steps.end()], tokens: 0 };
  }

  /**
   * An item's steps. A call's action is held until the next item ({@link HeldCall}): a call
   * loopguard refused (its output says so) is counted, never observed, as the hooks count it.
   */
  private responseItem(payload: Record<string, unknown>): TranscriptRead {
    const guard = codexGuardVerdicts(payload);
    const found = this.steps.item(payload);
    if (this.calls.refused(payload.call_id, guard))
      return { steps: [], tokens: 0, unobservedCalls: 1, guard };
    const steps = this.calls.give(found, payload.call_id);
    return guard.length === 0 ? { steps, tokens: 0 } : { steps, tokens: 0, guard };
  }

  /**
   * The tokens a `token_count` adds, with the usage of its last call (`last_token_usage`) by kind,
   * priced at the record's time (`timestamp`), not the scan's.
   */
  private tokenCount(payload: Record<string, unknown>, timestamp: unknown): TranscriptRead {
    const tokens = this.tokens(payload);
    const last = recordOf(recordOf(payload.info)?.last_token_usage);
    if (tokens === 0 || last === undefined) return { steps: [], tokens };
    const cached = numberOf(last.cached_input_tokens);
    const usage = usageRecordOf({
      model: this.model,
      inputTokens: numberOf(last.input_tokens) - cached,
      cacheReadTokens: cached,
      cacheCreationTokens: last.cache_write_input_tokens,
      outputTokens: last.output_tokens,
      at: timeOf(timestamp),
    });
    return { steps: [], tokens, usage };
  }

  private tokens(payload: Record<string, unknown>): number {
    const total = recordOf(recordOf(payload.info)?.total_token_usage)?.total_tokens;
    if (typeof total !== 'number') return 0;
    this.meta.hasUsage = true;
    const spent = Math.max(0, numberOf(total) - this.totalTokens);
    this.totalTokens = Math.max(this.totalTokens, numberOf(total));
    return spent;
  }
}
