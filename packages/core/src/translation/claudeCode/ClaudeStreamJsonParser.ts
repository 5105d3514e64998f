import { recordOf } from '../../kernel/jsonValues.js';
import { readJsonLine, type StepLineParser } from '../../steps/parsers/StepLineParser.js';
import type { Step } from '../../steps/step.js';
import { ClaudeCodeSteps } from './claudeCodeSteps.js';

/**
 * Claude Code's `--output-format stream-json` (with `--verbose`): each line is one event, read by
 * Claude Code's one translation ({@link ClaudeCodeSteps}, as the hooks and `scan` read the session):
 * `tool_use` blocks become actions, the user's `tool_result` blocks observations, the assistant's
 * text a message only when its reply calls no tool (given when the reply is complete, or with the
 * `result` event); thinking is not a step. `system` events give none; blank lines are skipped. A
 * subagent's events (`parent_tool_use_id`) are its own run: {@link subagent} names it.
 *
 * @example
 * const parser = new ClaudeStreamJsonParser();
 * parser.push('{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}');
 * // [{ type: 'action', tool: 'Bash', input: { command: 'ls' } }]
 */
export class ClaudeStreamJsonParser implements StepLineParser {
  /** See {@link StepLineParser.subagent}: a subagent's events carry the id of the `Task` call that started it. */
  subagent: string | null = null;
  private lines = 0;
  private readonly steps = new ClaudeCodeSteps();
  /** Each subagent's own translation (its held text is its own), by the tool call that started it. */
  private readonly subagents = new Map<string, ClaudeCodeSteps>();

  /** @throws InvalidInputError when the line is not a string or not JSON (naming the line number). */
  push(line: string, parsed?: unknown): Step[] {
    this.lines++;
    this.subagent = null;
    const record = recordOf(readJsonLine(line, this.lines, parsed));
    if (record === undefined) return [];
    const steps = this.runOf(record.parent_tool_use_id);
    if (record.type === 'assistant') return steps.assistant(record.message);
    if (record.type === 'user') return steps.user(record.message);
    if (record.type === 'result') return this.steps.end();
    return [];
  }

  /**
   * The stream ended: what the session still holds (its last reply's text, when no `result` came).
   * A subagent's last text went back to the session as its `Task` call's result.
   */
  end(): Step[] {
    this.subagent = null;
    return this.steps.end();
  }

  private runOf(parent: unknown): ClaudeCodeSteps {
    if (typeof parent !== 'string' || parent === '') return this.steps;
    this.subagent = parent;
    let steps = this.subagents.get(parent);
    if (steps === undefined) {
      steps = new ClaudeCodeSteps();
      this.subagents.set(parent, steps);
    }
    return steps;
  }
}
