import { recordOf } from '../../kernel/jsonValues.js';
import { readJsonLine, type StepLineParser } from '../../steps/parsers/StepLineParser.js';
import type { Step } from '../../steps/step.js';
import { CodexExecSteps } from './codexExecSteps.js';

export { CODEX_TOOLS } from './codexTools.js';

/**
 * OpenAI Codex CLI's `codex exec --json` (checked against 0.169.0): each line is one event, read by
 * Codex's one translation ({@link CodexExecSteps}): a finished command is an action (`tool` `shell`)
 * and its observation, a patch an action (`apply_patch`), an MCP call an action and its
 * observation, a web search an action; the agent's message a message only when no tool call
 * follows it before the turn ends; reasoning is not a step. Blank lines are skipped.
 *
 * @example
 * const parser = new CodexJsonParser();
 * parser.push('{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Done."}}'); // []
 * parser.push('{"type":"turn.completed"}'); // [{ type: 'message', text: 'Done.' }]
 */
export class CodexJsonParser implements StepLineParser {
  private lines = 0;
  private readonly steps = new CodexExecSteps();

  /** @throws InvalidInputError when the line is not a string or not JSON (naming the line number). */
  push(line: string, parsed?: unknown): Step[] {
    this.lines++;
    const event = recordOf(readJsonLine(line, this.lines, parsed));
    return event === undefined ? [] : this.steps.event(event);
  }

  /** The stream ended: the last message, when no `turn.completed` came. */
  end(): Step[] {
    return this.steps.end();
  }
}
