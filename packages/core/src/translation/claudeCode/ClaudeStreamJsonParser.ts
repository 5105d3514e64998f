import { recordOf } from '../../kernel/jsonValues.js';
import { readJsonLine, type StepLineParser } from '../../steps/StepLineParser.js';
import type { Step } from '../../steps/step.js';
import { ClaudeCodeSteps } from './claudeCodeSteps.js';

/**
 * Claude Code's `--output-format stream-json` (with `--verbose`): each line is one event, read by
 * Claude Code's one translation ({@link ClaudeCodeSteps}, as the hooks and `scan` read the session):
 * `tool_use` blocks become actions, the user's `tool_result` blocks observations, the assistant's
 * text a message only when its reply calls no tool (given when the reply is complete, or with the
 * `result` event); thinking is not a step. `system` events give none; blank lines are skipped.
 *
 * @example
 * const parser = new ClaudeStreamJsonParser();
 * parser.push('{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}');
 * // [{ type: 'action', tool: 'Bash', input: { command: 'ls' } }]
 */
export class ClaudeStreamJsonParser implements StepLineParser {
  private lines = 0;
  private readonly steps = new ClaudeCodeSteps();

  /** @throws InvalidInputError when the line is not a string or not JSON (naming the line number). */
  push(line: string): Step[] {
    this.lines++;
    const record = recordOf(readJsonLine(line, this.lines));
    if (record === undefined) return [];
    if (record.type === 'assistant') return this.steps.assistant(record.message);
    if (record.type === 'user') return this.steps.user(record.message);
    if (record.type === 'result') return this.steps.end();
    return [];
  }

  /** The stream ended: what is still held (the last reply's text, when no `result` came). */
  end(): Step[] {
    return this.steps.end();
  }
}
