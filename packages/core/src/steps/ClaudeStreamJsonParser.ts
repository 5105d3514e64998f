import { openCall } from './openCalls.js';
import { asRecord, blockName, jsonTextOf, readJsonLine, type StepLineParser } from './StepLineParser.js';
import type { Step } from './step.js';

type Block = Record<string, unknown>;

function blocksOf(event: Record<string, unknown>): Block[] {
  const message = event.message as Record<string, unknown> | undefined;
  const content = message?.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content)
    ? content.filter((block): block is Block => block !== null && typeof block === 'object')
    : [];
}

/** A tool result's text: a string, or the text blocks of an array joined by newlines. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : jsonTextOf(content, 'tool_result content');
  return content
    .map((part: unknown) => {
      const block = part as Block | null;
      if (block?.type === 'text' && typeof block.text === 'string') return block.text;
      return block === null ? '' : `[${blockName(block.type)}]`;
    })
    .join('\n');
}

/**
 * Claude Code's `--output-format stream-json` (with `--verbose`): each line is one event. Assistant
 * `text` (and `thinking`) blocks become messages, `tool_use` blocks become actions
 * (`tool` = the tool's name, `input` = its input object), and the user's `tool_result` blocks
 * become observations (`error` = `is_error`, `tool` = the name of the `tool_use` they answer).
 * `system` and `result` events give no steps; blank lines are skipped.
 *
 * @example
 * const parser = new ClaudeStreamJsonParser();
 * parser.push('{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}');
 * // [{ type: 'action', tool: 'Bash', input: { command: 'ls' } }]
 */
export class ClaudeStreamJsonParser implements StepLineParser {
  private lines = 0;
  /** tool_use id → tool name, so that results name their tool (bounded: `openCall`). */
  private readonly toolNames = new Map<string, string>();

  /** @throws InvalidInputError when the line is not a string or not JSON (naming the line number). */
  push(line: string): Step[] {
    this.lines++;
    const record = asRecord(readJsonLine(line, this.lines));
    if (record === undefined) return [];
    if (record.type === 'assistant') return this.assistantSteps(blocksOf(record));
    if (record.type === 'user') return this.userSteps(blocksOf(record));
    return [];
  }

  private assistantSteps(blocks: Block[]): Step[] {
    const steps: Step[] = [];
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') {
        steps.push({ type: 'message', text: block.text });
      } else if (
        block.type === 'thinking' &&
        typeof block.thinking === 'string' &&
        block.thinking.trim() !== ''
      ) {
        steps.push({ type: 'message', text: block.thinking });
      } else if (block.type === 'tool_use' && typeof block.name === 'string' && block.name !== '') {
        if (typeof block.id === 'string') openCall(this.toolNames, block.id, block.name);
        steps.push({ type: 'action', tool: block.name, input: block.input ?? {} });
      }
    }
    return steps;
  }

  private userSteps(blocks: Block[]): Step[] {
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
