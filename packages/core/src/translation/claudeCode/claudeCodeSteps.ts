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

/** What Claude Code adds to a file tool's result when the model already has the file's new state. */
const CURRENT_IN_CONTEXT = ' (file state is current in your context \u2014 no need to Read it back)';

/**
 * A `Write` result (`{ type: 'create' | 'update', filePath, content, structuredPatch, … }`) as
 * Claude Code 2.1.330 tells the model (its `mapToolResultToToolResultBlockParam`).
 */
function writeText(record: Record<string, unknown>): string {
  const modified = record.userModified === true;
  const tail =
    (modified ? ' The user modified your proposed content before accepting it.' : '') +
    (modified || record.memdirStamped === true ? '' : CURRENT_IN_CONTEXT);
  return record.type === 'create'
    ? `File created successfully at: ${record.filePath}${tail}`
    : `The file ${record.filePath} has been updated successfully.${tail}`;
}

/** An `Edit` result (`{ filePath, oldString, newString, structuredPatch, replaceAll, … }`), as the model reads it. */
function editText(record: Record<string, unknown>): string {
  const modified = record.userModified === true;
  const by = modified ? '.  The user modified your proposed changes before accepting them. ' : '';
  const note =
    record.staleRecovered === true
      ? ' (note: the file had been modified on disk since you last read it \u2014 the edit applied cleanly, but the file contains other changes not in your context. Read it before edits that depend on surrounding content.)'
      : modified || record.contentNotInModelContext === true
        ? ''
        : CURRENT_IN_CONTEXT;
  return record.replaceAll === true
    ? `The file ${record.filePath} has been updated${by}. All occurrences were successfully replaced.${note}`
    : `The file ${record.filePath} has been updated successfully${by}.${note}`;
}

/** A text `Read` result (`{ type: 'text', file: { content, startLine, … } }`): each line after its number and a tab. */
function readText(file: Record<string, unknown>): string {
  const first = typeof file.startLine === 'number' ? file.startLine : 1;
  return boundedText(file.content)
    .split('\n')
    .map((line, i) => `${first + i}\t${line}`)
    .join('\n');
}

/**
 * The sentence the model receives for a file tool's result, which Claude Code hands its hooks as an
 * object: `Write`, `Edit` and a text `Read` (a staged change, an empty file and other tools'
 * objects are not rewritten: `undefined`).
 */
function fileToolText(record: Record<string, unknown>): string | undefined {
  if (
    typeof record.filePath === 'string' &&
    Array.isArray(record.structuredPatch) &&
    record.staged !== true
  ) {
    if ((record.type === 'create' || record.type === 'update') && typeof record.content === 'string')
      return writeText(record);
    if (typeof record.oldString === 'string' && typeof record.newString === 'string') return editText(record);
  }
  const file = recordOf(record.file);
  if (record.type === 'text' && typeof file?.content === 'string' && file.content !== '')
    return readText(file);
  return undefined;
}

/**
 * The output of a tool as Claude Code's hooks give it (`tool_response`), read as the model received
 * it (the transcript's and the stream's `tool_result`), so that every door sees one result:
 * Bash's `{ stdout, stderr, interrupted, ... }` as its stdout and stderr joined, or
 * {@link CLAUDE_NO_OUTPUT} when both are empty; `Write`, `Edit` and a text `Read` as the sentence or
 * the numbered lines Claude Code 2.1.330 gives the model ("The file … has been updated
 * successfully. …"); a list of content blocks as {@link claudeResultText}; anything else as bounded text.
 * @example claudeToolResponseText({ stdout: 'a', stderr: 'b' }); // 'a\nb'
 * @example claudeToolResponseText({ stdout: '', stderr: '' }); // '(Bash completed with no output)'
 */
export function claudeToolResponseText(response: unknown): string {
  const record = recordOf(response);
  if (record !== undefined && 'stdout' in record) {
    const parts = [boundedText(record.stdout), boundedText(record.stderr)].filter((part) => part !== '');
    return parts.length === 0 ? CLAUDE_NO_OUTPUT : parts.join('\n');
  }
  const file = record === undefined ? undefined : fileToolText(record);
  return file ?? claudeResultText(response);
}

/** Claude Code (2.1.330) wraps in this the error it raised itself before the call ran (validation, a blocked command, no such tool). */
const CLAUDE_REFUSAL = '<tool_use_error>';

/** Whether a failed call's result is Claude Code's own refusal: its text starts `<tool_use_error>`. */
function isClaudeRefusal(content: unknown): boolean {
  const text = Array.isArray(content) ? recordOf(content[0])?.text : content;
  return typeof text === 'string' && text.startsWith(CLAUDE_REFUSAL);
}

/**
 * The result of one call of Claude Code's `PostToolBatch` event (`tool_calls[].tool_response`), read
 * as the model received it ({@link claudeToolResponseText}); a result wrapped in `<tool_use_error>`
 * is Claude Code's own refusal of the call before it ran, which the model got as an error
 * (`error` and `refused`, as the transcript's and the stream's `tool_result` read it).
 * @example claudeBatchResult('<tool_use_error>No such tool available: x</tool_use_error>').refused; // true
 */
export function claudeBatchResult(response: unknown): { output: string; error: boolean; refused: boolean } {
  const output = claudeToolResponseText(response);
  const refused = isClaudeRefusal(output);
  return { output, error: refused, refused };
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
 * A result it wrapped in `<tool_use_error>` is its own refusal of the call before it ran (`refused`).
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
      if (block.is_error === true && isClaudeRefusal(block.content)) step.refused = true;
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
