import { anthropicUsage } from '@loopguard/core/spend';
import { ClaudeCodeSteps } from '@loopguard/core/steps';
import {
  NOTHING,
  noteStart,
  recordOf,
  type SessionMeta,
  type TranscriptParser,
  type TranscriptRead,
  usageTokens,
} from './TranscriptParser.js';

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
 * - a sidechain (a subagent's turns, `isSidechain`) is another run: only the records on the side
 *   of the first message count (the main session in the main file, the subagent in its own file).
 * Usage is counted once per API reply (one reply is written as one record per content block, with
 * the same `message.id`).
 */
export class ClaudeTranscriptParser implements TranscriptParser {
  readonly agent = 'claude';
  readonly format = 'claude-transcript';
  readonly meta: SessionMeta = { hasUsage: false };
  private sidechain: boolean | undefined;
  private lastReply: unknown;
  private readonly steps = new ClaudeCodeSteps();

  /** Only user and assistant records give steps or usage (most of a transcript is neither). */
  mayMatter(line: string): boolean {
    return line.includes('"assistant"') || line.includes('"user"');
  }

  push(record: Record<string, unknown>): TranscriptRead {
    if (this.meta.sessionId === undefined && typeof record.sessionId === 'string') {
      this.meta.sessionId = record.sessionId;
    }
    if (record.type !== 'assistant' && record.type !== 'user') return NOTHING;
    this.sidechain ??= record.isSidechain === true;
    if ((record.isSidechain === true) !== this.sidechain) return NOTHING;
    noteStart(this.meta, record.timestamp);
    if (this.meta.project === undefined && typeof record.cwd === 'string') this.meta.project = record.cwd;
    const message = recordOf(record.message);
    if (record.type === 'user') {
      return record.isMeta === true || record.isCompactSummary === true
        ? NOTHING
        : { steps: this.steps.user(message), tokens: 0 };
    }
    if (record.isApiErrorMessage === true) return NOTHING;
    const tokens = this.replyTokens(message);
    const steps = this.steps.assistant(message);
    const usage = tokens === 0 ? undefined : anthropicUsage(message);
    return usage === undefined ? { steps, tokens } : { steps, tokens, usage };
  }

  end(): TranscriptRead {
    return { steps: this.steps.end(), tokens: 0 };
  }

  private replyTokens(message: Record<string, unknown> | undefined): number {
    const usage = recordOf(message?.usage);
    if (usage === undefined) return 0;
    this.meta.hasUsage = true;
    const id = message?.id;
    if (id !== undefined && id === this.lastReply) return 0;
    this.lastReply = id;
    return usageTokens(usage);
  }
}
