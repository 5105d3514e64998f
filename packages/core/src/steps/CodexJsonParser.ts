import { asRecord, jsonTextOf, readJsonLine, type StepLineParser } from './StepLineParser.js';
import type { Step } from './step.js';

/** Tool names the Codex steps carry (Codex's own events name no tool for commands and patches). */
export const CODEX_TOOLS = { command: 'shell', fileChange: 'apply_patch', webSearch: 'web_search' } as const;

/**
 * OpenAI Codex CLI's `codex exec --json` (checked against 0.169.0): each line is one event, and a
 * finished item (`item.completed`) gives the steps. A `command_execution` is an action (`tool`
 * `shell`, `input` its command) and an observation (`output` its `aggregated_output`, `error` when
 * its exit code is not 0 or its status is `failed`); a `file_change` is an action (`tool`
 * `apply_patch`, `input` its changes, paths and kinds); an `mcp_tool_call` is an action (`server/tool`,
 * its arguments) and an observation of its result or error; a `web_search` is an action; an
 * `agent_message` or `reasoning` is a message. Started and updated items, `error` items (the CLI's
 * own warnings), turns and threads give none; blank lines are skipped.
 *
 * @example
 * const parser = new CodexJsonParser();
 * parser.push('{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Done."}}');
 * // [{ type: 'message', text: 'Done.' }]
 */
export class CodexJsonParser implements StepLineParser {
  private lines = 0;

  /** @throws InvalidInputError when the line is not a string or not JSON (naming the line number). */
  push(line: string): Step[] {
    this.lines++;
    const event = asRecord(readJsonLine(line, this.lines));
    if (event?.type !== 'item.completed') return [];
    const item = asRecord(event.item);
    return item === undefined ? [] : itemSteps(item);
  }
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : jsonTextOf(value, 'item field');
}

function itemSteps(item: Record<string, unknown>): Step[] {
  switch (item.type) {
    case 'command_execution': {
      const failed = (typeof item.exit_code === 'number' && item.exit_code !== 0) || item.status === 'failed';
      const observation: Step = {
        type: 'observation',
        tool: CODEX_TOOLS.command,
        output: text(item.aggregated_output),
      };
      if (failed) observation.error = true;
      return [{ type: 'action', tool: CODEX_TOOLS.command, input: text(item.command) }, observation];
    }
    case 'file_change': {
      const action: Step = {
        type: 'action',
        tool: CODEX_TOOLS.fileChange,
        input: { changes: item.changes ?? [] },
      };
      if (item.status !== 'failed') return [action];
      return [
        action,
        { type: 'observation', tool: CODEX_TOOLS.fileChange, output: 'patch failed', error: true },
      ];
    }
    case 'mcp_tool_call': {
      const tool = `${text(item.server)}/${text(item.tool)}`;
      const error = asRecord(item.error);
      const observation: Step =
        error === undefined && item.status !== 'failed'
          ? { type: 'observation', tool, output: text(item.result) }
          : { type: 'observation', tool, output: text(error?.message ?? item.error), error: true };
      return [{ type: 'action', tool, input: item.arguments ?? {} }, observation];
    }
    case 'web_search':
      return [{ type: 'action', tool: CODEX_TOOLS.webSearch, input: text(item.query) }];
    case 'agent_message':
    case 'reasoning':
      return typeof item.text === 'string' && item.text.trim() !== ''
        ? [{ type: 'message', text: item.text }]
        : [];
    default:
      return [];
  }
}
