import type { Step } from '@loopguard/core/steps';
import {
  NOTHING,
  noteStart,
  recordOf,
  type SessionMeta,
  type TranscriptParser,
  type TranscriptRead,
  usageTokens,
} from './TranscriptParser.js';

type Block = Record<string, unknown>;

function blocksOf(message: Record<string, unknown> | undefined): Block[] {
  const content = message?.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter((b): b is Block => recordOf(b) !== undefined) : [];
}

/** A tool result's text: a string, or its text blocks joined (other blocks named, `[image]`). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((part) => {
      const block = recordOf(part);
      if (block?.type === 'text' && typeof block.text === 'string') return block.text;
      return block === undefined ? '' : `[${String(block.type)}]`;
    })
    .join('\n');
}

/**
 * A Claude Code session transcript (`~/.claude/projects/<project>/<session>.jsonl`, checked against
 * 2.1.330). What is a step:
 * - an assistant `tool_use` block is an action, the user's `tool_result` block answering it an
 *   observation (`error` = `is_error`), an assistant `text` block a message: what the hooks see;
 * - `thinking` blocks are not steps (no hook sees them); API error replies (`isApiErrorMessage`),
 *   the user's own text, meta and compaction-summary messages (`isMeta`, `isCompactSummary`),
 *   attachments, `api-request*`, `summary`, queue and cost records give none;
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
  /** `message.id:requestId` of the replies counted (ccusage's key: a reply is counted once; no id, no key). */
  private readonly counted = new Set<string>();
  /** tool_use id → tool name, so that results name their tool. */
  private readonly toolNames = new Map<string, string>();

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
    if ((record.isSidechain === true) !== this.sidechain) {
      // the other side's replies are no steps of this run, but the session paid for them
      return record.type === 'assistant'
        ? { steps: [], tokens: this.replyTokens(recordOf(record.message), record.requestId) }
        : NOTHING;
    }
    noteStart(this.meta, record.timestamp);
    if (this.meta.project === undefined && typeof record.cwd === 'string') this.meta.project = record.cwd;
    const message = recordOf(record.message);
    if (record.type === 'user') {
      return record.isMeta === true || record.isCompactSummary === true
        ? NOTHING
        : { steps: this.results(blocksOf(message)), tokens: 0 };
    }
    const tokens = this.replyTokens(message, record.requestId);
    if (record.isApiErrorMessage === true) return { steps: [], tokens };
    return { steps: this.replySteps(blocksOf(message)), tokens };
  }

  end(): TranscriptRead {
    return NOTHING;
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
      const key = `${id}:${typeof requestId === 'string' ? requestId : ''}`;
      if (this.counted.has(key)) return 0;
      this.counted.add(key);
    }
    return usageTokens(usage);
  }

  private replySteps(blocks: Block[]): Step[] {
    const steps: Step[] = [];
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') {
        steps.push({ type: 'message', text: block.text });
      } else if (block.type === 'tool_use' && typeof block.name === 'string' && block.name !== '') {
        if (typeof block.id === 'string') this.toolNames.set(block.id, block.name);
        steps.push({ type: 'action', tool: block.name, input: block.input ?? {} });
      }
    }
    return steps;
  }

  private results(blocks: Block[]): Step[] {
    const steps: Step[] = [];
    for (const block of blocks) {
      if (block.type !== 'tool_result') continue;
      const id = typeof block.tool_use_id === 'string' ? block.tool_use_id : undefined;
      const tool = id === undefined ? undefined : this.toolNames.get(id);
      if (id !== undefined) this.toolNames.delete(id);
      const step: Step = { type: 'observation', output: resultText(block.content) };
      if (tool !== undefined) step.tool = tool;
      if (block.is_error === true) step.error = true;
      steps.push(step);
    }
    return steps;
  }
}
