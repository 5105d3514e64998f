import { openCall } from './openCalls.js';
import { PiecedText } from './piecedText.js';
import { asRecord, readJsonLine, type StepLineParser } from './StepLineParser.js';
import type { Step } from './step.js';

/**
 * Gemini CLI's `--output-format stream-json` (checked against 0.61.0): each line is one event. A
 * `tool_use` is an action (`tool_name`, `parameters`); a `tool_result` an observation of the call
 * it answers (`output`; when `status` is `error`, the error's message with `error: true`). The
 * assistant's text arrives in pieces (`message` events with `delta: true`): consecutive pieces make
 * one message, given with the next event that is not one (or with the `result`), held within the
 * bounds of `PiecedText` (its head and tail). Calls awaiting a result are remembered up to `MAX_OPEN_CALLS`. User messages,
 * `init`, `error` and `result` events give no steps of their own; blank lines are skipped.
 *
 * @example
 * const parser = new GeminiStreamJsonParser();
 * parser.push('{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"ls"}}');
 * // [{ type: 'action', tool: 'run_shell_command', input: { command: 'ls' } }]
 */
export class GeminiStreamJsonParser implements StepLineParser {
  private lines = 0;
  /** The message's pieces, bounded (a message of any length holds the same memory). */
  private readonly text = new PiecedText();
  /** tool_id → tool name, so that results name their tool. */
  private readonly toolNames = new Map<string, string>();

  /** @throws InvalidInputError when the line is not a string or not JSON (naming the line number). */
  push(line: string): Step[] {
    this.lines++;
    const event = asRecord(readJsonLine(line, this.lines));
    if (event === undefined) return [];
    if (event.type === 'message' && event.role === 'assistant') {
      if (typeof event.content === 'string') this.text.add(event.content);
      return event.delta === true ? [] : this.flush();
    }
    const steps = this.flush();
    if (event.type === 'tool_use' && typeof event.tool_name === 'string' && event.tool_name !== '') {
      if (typeof event.tool_id === 'string') openCall(this.toolNames, event.tool_id, event.tool_name);
      steps.push({ type: 'action', tool: event.tool_name, input: event.parameters ?? {} });
    } else if (event.type === 'tool_result') {
      steps.push(this.observation(event));
    }
    return steps;
  }

  private observation(event: Record<string, unknown>): Step {
    const id = typeof event.tool_id === 'string' ? event.tool_id : undefined;
    const tool = id === undefined ? undefined : this.toolNames.get(id);
    if (id !== undefined) this.toolNames.delete(id);
    const failed = event.status === 'error';
    const error = asRecord(event.error);
    // A failure's message names what failed (`File not found: /repo/a.txt`); its output only the kind.
    const message = failed && typeof error?.message === 'string' ? error.message : undefined;
    const output = message ?? (typeof event.output === 'string' ? event.output : '');
    const step: Step = { type: 'observation', output };
    if (tool !== undefined) step.tool = tool;
    if (failed) step.error = true;
    return step;
  }

  private flush(): Step[] {
    const text = this.text.take();
    return text.trim() === '' ? [] : [{ type: 'message', text }];
  }
}
