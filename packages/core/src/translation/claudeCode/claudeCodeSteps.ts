import { boundedText } from '../../kernel/boundedText.js';
import { recordOf } from '../../kernel/jsonValues.js';
import type { Step } from '../../steps/step.js';
import { CallNames } from '../callNames.js';
import { TurnText } from '../turnText.js';

type Block = Record<string, unknown>;

/** A message's content blocks: a string is one text block; what is not an object is left out. */
function blocksOf(message: unknown): Block[] {
  const content = recordOf(message)?.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map(recordOf).filter((block): block is Block => block !== undefined);
}

/**
 * A tool result's text: a string as it is, the text blocks of a list joined by newlines (other
 * blocks named by their type, `[image]`), anything else as bounded JSON.
 * @example claudeResultText([{ type: 'text', text: 'ok' }, { type: 'image' }]); // 'ok\n[image]'
 */
export function claudeResultText(content: unknown): string {
  if (!Array.isArray(content)) return boundedText(content);
  return content
    .map((part: unknown) => {
      const block = recordOf(part);
      if (block === undefined) return '';
      if (block.type === 'text' && typeof block.text === 'string') return block.text;
      return `[${typeof block.type === 'string' ? block.type : boundedText(block.type, 80)}]`;
    })
    .join('\n');
}

/** What Claude Code hands the model (and writes in the transcript) for a Bash call that printed nothing. */
export const CLAUDE_NO_OUTPUT = '(Bash completed with no output)';

/**
 * The output of a tool as Claude Code's hooks give it (`tool_response`), read as the model received
 * it (the transcript's and the stream's `tool_result`): Bash's `{ stdout, stderr, interrupted, ... }`
 * as its stdout and stderr joined, or {@link CLAUDE_NO_OUTPUT} when both are empty; a list of
 * content blocks as {@link claudeResultText}; anything else as bounded text.
 * @example claudeToolResponseText({ stdout: 'a', stderr: 'b' }); // 'a\nb'
 * @example claudeToolResponseText({ stdout: '', stderr: '' }); // '(Bash completed with no output)'
 */
export function claudeToolResponseText(response: unknown): string {
  const record = recordOf(response);
  if (record !== undefined && 'stdout' in record) {
    const parts = [boundedText(record.stdout), boundedText(record.stderr)].filter((part) => part !== '');
    return parts.length === 0 ? CLAUDE_NO_OUTPUT : parts.join('\n');
  }
  return claudeResultText(response);
}

/**
 * Claude Code's messages as steps, shared by every door that reads them (the live
 * `--output-format stream-json`, the session transcript, the Agent SDK): an assistant `tool_use`
 * block is an action (`tool` its name, `input` its input object, which the detector reads as the
 * command for shell tools); a user `tool_result` block an observation (`error` = `is_error`, `tool`
 * the name of the call it answers); the assistant's text only when its reply calls no tool, once
 * the reply is complete (see {@link TurnText}); `thinking` blocks never.
 *
 * Claude Code writes a reply as one record per content block, all with the reply's `message.id`.
 */
export class ClaudeCodeSteps {
  private readonly calls = new CallNames();
  private readonly text = new TurnText();
  private reply: unknown;

  /** The steps of an assistant message (`{ id, content }`). */
  assistant(message: unknown): Step[] {
    const id = recordOf(message)?.id;
    const steps = id !== undefined && id === this.reply ? [] : this.text.flush();
    this.reply = id;
    for (const block of blocksOf(message)) {
      if (block.type === 'text') this.text.add(block.text);
      else if (block.type === 'tool_use' && typeof block.name === 'string' && block.name !== '') {
        this.text.drop();
        this.calls.open(block.id, block.name);
        steps.push({ type: 'action', tool: block.name, input: block.input ?? {} });
      }
    }
    return steps;
  }

  /** The steps of a user message: its `tool_result` blocks (the user's own text is not a step). */
  user(message: unknown): Step[] {
    const steps = this.end();
    for (const block of blocksOf(message)) {
      if (block.type !== 'tool_result') continue;
      const step: Step = { type: 'observation', output: claudeResultText(block.content) };
      const tool = this.calls.close(block.tool_use_id);
      if (tool !== undefined) step.tool = tool;
      if (block.is_error === true) step.error = true;
      steps.push(step);
    }
    return steps;
  }

  /** The turn ended (a `result` event, the end of the transcript): the held text. */
  end(): Step[] {
    this.reply = undefined;
    return this.text.flush();
  }
}
