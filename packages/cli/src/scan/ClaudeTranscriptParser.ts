import { RecentSet, recordOf } from '@loopguard/core/internal';
import { anthropicUsage } from '@loopguard/core/spend';
import { ClaudeCodeSteps, type Step } from '@loopguard/core/steps';
import { claudeGuardVerdicts } from './guardVerdicts.js';
import { HeldCall } from './heldCall.js';
import {
  NOTHING,
  noteStart,
  type SessionMeta,
  type TranscriptParser,
  type TranscriptRead,
  timeOf,
  usageTokens,
} from './TranscriptParser.js';

/**
 * Replies whose key is remembered, in each of two generations: a reply's records (one per content
 * block, its tool results in between) come within one turn, far fewer replies apart than this.
 */
const COUNTED_GENERATION = 32_768;

/** `{`: a line whose first key is `"type"` starts `{"type":"`. */
const OPEN_BRACE = 0x7b;

/** How far into a line an attachment's `"type":"hook_…"` is looked for. */
const HOOK_TYPE_WITHIN = 512;

/**
 * A Claude Code session transcript (`~/.claude/projects/<project>/<session>.jsonl`, checked against
 * 2.1.330). What is a step:
 * - Claude Code's one translation ({@link ClaudeCodeSteps}, as the hooks and the live stream read
 *   it): an assistant `tool_use` block is an action, the user's `tool_result` block answering it an
 *   observation (`error` = `is_error`), the assistant's text a message only when its reply calls no
 *   tool (the turn's last word, what the `Stop` hook sees): what the hooks see;
 * - `thinking` blocks are not steps (no hook sees them); API error replies (`isApiErrorMessage`),
 *   the user's own text, meta and compaction-summary messages (`isMeta`, `isCompactSummary`),
 *   attachments, `api-request*`, `summary`, queue and cost records give none;
 * - loopguard's own nudges and stops (its hooks' answers, written as `attachment` records) and its
 *   refusals (a call's result that names the hook that rejected it) are noted as such
 *   ({@link claudeGuardVerdicts}); a refused call is counted, never observed ({@link HeldCall});
 * - a sidechain (a subagent's turns, `isSidechain`) is another run: only the records on the side
 *   of the first message give steps (the main session in the main file, the subagent in its own file).
 * Usage is counted as ccusage counts it: once per API reply (one reply is written as one record per
 * content block, with the same `message.id` and `requestId`), API error replies and the other side's
 * replies (a sidechain in the main file) included.
 */
export class ClaudeTranscriptParser implements TranscriptParser {
  readonly agent = 'claude';
  readonly format = 'claude-transcript';
  readonly meta: SessionMeta = { hasUsage: false };
  private sidechain: boolean | undefined;
  /**
   * `message.id:requestId` of the replies counted (ccusage's key: a reply is counted once; no id, no
   * key), the last 32,768 to 65,536 of them: a set of every reply grew with the file.
   */
  private readonly counted = new RecentSet<string>(COUNTED_GENERATION);
  /** The `message.id` and `requestId` of the last reply counted: its next records repeat them. */
  private lastId: unknown;
  private lastRequestId: unknown;
  private readonly steps = new ClaudeCodeSteps();
  /** A `tool_use` not given yet: its result may say loopguard refused it. */
  private readonly calls = new HeldCall();

  /**
   * Only user and assistant records give steps or usage (most of a transcript is neither). Claude
   * Code writes the record's `type` before its message: a first `"type":"user"` or `"assistant"`
   * answers at once, without a search through the whole line (a tool result's) for the other word.
   */
  mayMatter(line: string): boolean {
    const type = line.indexOf('"type":"');
    if (type !== -1 && (line.startsWith('user"', type + 8) || line.startsWith('assistant"', type + 8)))
      return true;
    // a record whose first key is its type (`api-request`, `summary`, `file-history-snapshot`: a
    // third of a transcript's bytes) is known from it, without a search through the whole line: one
    // of none of the three types gives nothing, once the session is named (push reads any record's
    // `sessionId`). A type written with an escape is not read here.
    if (type === 1 && line.charCodeAt(0) === OPEN_BRACE && this.meta.sessionId !== undefined) {
      const name = line.slice(9, line.indexOf('"', 9));
      if (name !== 'attachment' && !name.includes('\\')) return false;
    }
    // and a hook's answer (`hook_additional_context`, `hook_stopped_continuation`: loopguard's own?),
    // whose attachment type Claude Code writes within the line's first characters (at 87 in 2.1.330):
    // looked for there only, so that the long attachments are not read through once more
    return (
      line.includes('"assistant"') ||
      line.includes('"user"') ||
      line.lastIndexOf('"type":"hook_', HOOK_TYPE_WITHIN) !== -1
    );
  }

  push(record: Record<string, unknown>): TranscriptRead {
    if (this.meta.sessionId === undefined && typeof record.sessionId === 'string') {
      this.meta.sessionId = record.sessionId;
    }
    if (record.type === 'attachment') return this.attachment(record);
    if (record.type !== 'assistant' && record.type !== 'user') return NOTHING;
    this.sidechain ??= record.isSidechain === true;
    if ((record.isSidechain === true) !== this.sidechain) {
      // the other side's replies are no steps of this run, but the session paid for them
      return record.type === 'assistant' ? this.reply([], recordOf(record.message), record) : NOTHING;
    }
    noteStart(this.meta, record.timestamp);
    if (this.sidechain && this.meta.parentSessionId === undefined && typeof record.agentId === 'string') {
      // a subagent's own file: its run is named by its agent id, under its session's
      this.meta.parentSessionId = this.meta.sessionId ?? String(record.sessionId);
      this.meta.sessionId = record.agentId;
    }
    if (this.meta.project === undefined && typeof record.cwd === 'string') this.meta.project = record.cwd;
    const message = recordOf(record.message);
    if (record.type === 'user') {
      if (record.isMeta === true || record.isCompactSummary === true) return NOTHING;
      const found = this.steps.user(message);
      const guard = claudeGuardVerdicts(record);
      if (this.calls.refused(blockOf(message, 'tool_result')?.tool_use_id, guard))
        return { steps: [], tokens: 0, unobservedCalls: 1, guard };
      const steps = this.calls.give(found);
      return guard.length === 0 ? { steps, tokens: 0 } : { steps, tokens: 0, guard };
    }
    const found = record.isApiErrorMessage === true ? [] : this.steps.assistant(message);
    return this.reply(this.calls.give(found, blockOf(message, 'tool_use')?.id), message, record);
  }

  end(): TranscriptRead {
    return { steps: [...this.calls.give([]), ...this.steps.end()], tokens: 0 };
  }

  /** loopguard's own nudge or stop, when the attachment is one (on this run's side). */
  private attachment(record: Record<string, unknown>): TranscriptRead {
    if ((record.isSidechain === true) !== (this.sidechain ?? false)) return NOTHING;
    const guard = claudeGuardVerdicts(record);
    return guard.length === 0 ? NOTHING : { steps: this.calls.give([]), tokens: 0, guard };
  }

  /**
   * A reply's steps with its tokens and usage (for its price, at the record's time: a scan run
   * another day prices it the same), counted once.
   */
  private reply(
    steps: Step[],
    message: Record<string, unknown> | undefined,
    record: Record<string, unknown>,
  ): TranscriptRead {
    const tokens = this.replyTokens(message, record.requestId);
    const usage = tokens === 0 ? undefined : anthropicUsage(message, timeOf(record.timestamp));
    return usage === undefined ? { steps, tokens } : { steps, tokens, usage };
  }

  /**
   * A reply's tokens, once: Claude Code writes one record per content block of a reply, each with
   * the reply's usage, and not always next to each other (tool results can come in between).
   */
  private replyTokens(message: Record<string, unknown> | undefined, requestId: unknown): number {
    const usage = recordOf(message?.usage);
    if (usage === undefined) return 0;
    this.meta.hasUsage = true;
    const id = message?.id;
    if (typeof id === 'string') {
      // the reply's next record (most of a reply's records follow each other): no key to make
      if (id === this.lastId && requestId === this.lastRequestId) return 0;
      const key = `${id}:${typeof requestId === 'string' ? requestId : ''}`;
      if (!this.counted.addNew(key)) return 0;
      this.lastId = id;
      this.lastRequestId = requestId;
    }
    return usageTokens(usage);
  }
}

/** The message's one content block of `type` (a record holds one block), or `undefined`. */
function blockOf(
  message: Record<string, unknown> | undefined,
  type: string,
): Record<string, unknown> | undefined {
  const blocks = Array.isArray(message?.content) ? message.content.map(recordOf) : [];
  const found = blocks.filter((block) => block?.type === type);
  return found.length === 1 ? found[0] : undefined;
}
