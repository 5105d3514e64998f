import { recordOf } from '../../kernel/jsonValues.js';
import { readJsonLine, type StepLineParser } from '../../steps/parsers/StepLineParser.js';
import type { Step } from '../../steps/step.js';
import { GeminiCliSteps } from './geminiCliSteps.js';

/**
 * Gemini CLI's `--output-format stream-json` (checked against 0.61.0): each line is one event, read
 * by Gemini CLI's one translation ({@link GeminiCliSteps}): a `tool_use` is an action
 * (`tool_name`, `parameters`), a `tool_result` the observation of the call it answers; the
 * assistant's text (its `delta` pieces joined) a message only when no tool call follows it, given
 * with the `result` event. `init` and `error` events give none; blank lines are skipped.
 *
 * @example
 * const parser = new GeminiStreamJsonParser();
 * parser.push('{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"ls"}}');
 * // [{ type: 'action', tool: 'run_shell_command', input: { command: 'ls' } }]
 */
export class GeminiStreamJsonParser implements StepLineParser {
  private lines = 0;
  private readonly steps = new GeminiCliSteps();

  /** @throws InvalidInputError when the line is not a string or not JSON (naming the line number). */
  push(line: string, parsed?: unknown): Step[] {
    this.lines++;
    const event = recordOf(readJsonLine(line, this.lines, parsed));
    return event === undefined ? [] : this.steps.streamEvent(event);
  }

  /** The stream ended: the last text, when no `result` came. */
  end(): Step[] {
    return this.steps.end();
  }
}
