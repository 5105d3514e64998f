import { boundedText } from '../../kernel/boundedText.js';
import { recordOf } from '../../kernel/jsonValues.js';
import type { ObservationStep, Step } from '../../steps/step.js';
import { CallNames } from '../callNames.js';
import { PiecedText } from '../piecedText.js';
import { TurnText } from '../turnText.js';

/** `run_shell_command` reports a failing command in the model's copy (`Exit Code: 1`), not as an error. */
const FAILED_EXIT = /^Exit Code: [1-9]\d*$/m;

/** Gemini CLI (0.61.0)'s error for a call of a tool it does not have (the call never ran): `Tool "sleep" not found. …`. */
const GEMINI_NO_TOOL = /^Tool "[^"\n]*" not found\b/;

/**
 * One tool result as every Gemini CLI door reads it. The output is what the CLI displays, even when
 * empty (the stream has nothing else, and the model's copy wraps it in volatile lines such as
 * `Process Group PGID: 1446`), else the model's copy;
 * a failure is the error's message (it names what failed, `File not found: /repo/a.txt`). `error`
 * when the call failed or the model's copy reports a non-zero exit code; `refused` when the error
 * says the tool does not exist (the call never ran).
 */
function observation(
  tool: string | undefined,
  result: { display?: unknown; model?: unknown; error?: unknown; failed?: boolean },
): ObservationStep {
  const model = boundedText(result.model);
  const message = recordOf(result.error)?.message ?? result.error;
  const failed = result.failed === true || (message !== undefined && message !== null);
  const output =
    failed && message !== undefined && message !== null
      ? boundedText(message)
      : typeof result.display === 'string'
        ? result.display
        : model;
  const step: ObservationStep = { type: 'observation', output };
  if (tool !== undefined) step.tool = tool;
  if (failed || FAILED_EXIT.test(model)) step.error = true;
  if (typeof message === 'string' && GEMINI_NO_TOOL.test(message)) step.refused = true;
  return step;
}

/**
 * A tool's result as Gemini CLI's hooks give it (`tool_response`: `{ llmContent, returnDisplay, error? }`),
 * read as the stream and the chat are (see the class).
 * @example geminiToolResponse({ llmContent: 'Output: hi', returnDisplay: 'hi' }); // { output: 'hi', error: false }
 */
export function geminiToolResponse(response: unknown): { output: string; error: boolean } {
  const record = recordOf(response);
  if (record === undefined) return { output: boundedText(response), error: false };
  const step = observation(undefined, {
    display: record.returnDisplay,
    model: record.llmContent,
    error: record.error,
  });
  return { output: step.output, error: step.error === true };
}

/** A chat tool call's result: what it displayed, its responses' `output` (the model's copy) or `error`. */
function chatResult(call: Record<string, unknown>): ObservationStep {
  const parts = Array.isArray(call.result) ? call.result : [];
  const responses = parts.map((part) => recordOf(recordOf(recordOf(part)?.functionResponse)?.response));
  const errors = responses.map((r) => r?.error).filter((e) => e !== undefined && e !== null);
  const model = responses
    .map((r) => (r === undefined ? '' : typeof r.output === 'string' ? r.output : boundedText(r)))
    .join('\n');
  return observation(typeof call.name === 'string' ? call.name : undefined, {
    display: call.resultDisplay,
    model,
    error: errors[0],
    failed: call.status === 'error',
  });
}

/** A message's text: a string, or the text parts of a list joined. */
function chatText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => recordOf(part)?.text)
    .filter((text) => typeof text === 'string')
    .join('');
}

/**
 * Gemini CLI's events as steps, shared by its doors: a tool call is an action (`tool` its name,
 * `input` its arguments, which the detector reads as the command for `run_shell_command`), its
 * result an observation (see {@link geminiToolResponse}); the model's text is a message only when
 * its reply calls no tool (see {@link TurnText}); thoughts never are.
 */
export class GeminiCliSteps {
  private readonly calls = new CallNames();
  private readonly text = new TurnText();
  /** The assistant's message pieces, bounded (a message of any length holds the same memory). */
  private readonly pieces = new PiecedText();

  /**
   * One event of `--output-format stream-json` (checked against 0.61.0): `tool_use` (`tool_name`,
   * `tool_id`, `parameters`), `tool_result` (`tool_id`, `status`, `output`, `error`), the
   * assistant's `message` pieces (`delta: true`), which make one text until the next other event
   * (held within the bounds of {@link PiecedText}: its head and tail).
   */
  streamEvent(event: Record<string, unknown>): Step[] {
    if (event.type === 'message' && event.role === 'assistant') {
      if (typeof event.content === 'string') this.pieces.add(event.content);
      if (event.delta !== true) this.endPieces();
      return [];
    }
    this.endPieces();
    if (event.type === 'tool_use' && typeof event.tool_name === 'string' && event.tool_name !== '') {
      this.text.drop();
      this.calls.open(event.tool_id, event.tool_name);
      return [{ type: 'action', tool: event.tool_name, input: event.parameters ?? {} }];
    }
    if (event.type === 'tool_result') {
      const failed = event.status === 'error';
      return [
        observation(this.calls.close(event.tool_id), { display: event.output, error: event.error, failed }),
      ];
    }
    return event.type === 'result' || (event.type === 'message' && event.role === 'user')
      ? this.text.flush()
      : [];
  }

  /**
   * One model (`gemini`) record of a chat (`~/.gemini/tmp/<project>/chats/session-*.jsonl`), in its
   * last copy: its text, then each tool call as an action and the observation of its result
   * (`error` when its status is `error`). The text is held until it is known to end the turn.
   * @param unrun - the calls that never ran (refused before they ran, to be counted only): they end
   *   the held text as any call does, and give no step. @default none
   */
  chatReply(
    reply: Record<string, unknown>,
    unrun: (call: Record<string, unknown>) => boolean = () => false,
  ): Step[] {
    const steps = this.text.flush();
    const calls = Array.isArray(reply.toolCalls) ? reply.toolCalls.map(recordOf) : [];
    this.text.add(chatText(reply.content));
    for (const call of calls) {
      if (call === undefined || typeof call.name !== 'string' || call.name === '') continue;
      this.text.drop();
      if (!unrun(call))
        steps.push({ type: 'action', tool: call.name, input: call.args ?? {} }, chatResult(call));
    }
    return steps;
  }

  /** The session ended: the held text. */
  end(): Step[] {
    this.endPieces();
    return this.text.flush();
  }

  private endPieces(): void {
    this.text.add(this.pieces.take());
  }
}
