import { boundedText } from '../../kernel/boundedText.js';
import { recordOf } from '../../kernel/jsonValues.js';
import type { Step } from '../../steps/step.js';
import { TurnText } from '../turnText.js';
import { CODEX_TOOLS } from './codexTools.js';

function isArgv(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((part) => typeof part === 'string');
}

function toolSteps(item: Record<string, unknown>): Step[] | undefined {
  switch (item.type) {
    case 'command_execution': {
      const failed = (typeof item.exit_code === 'number' && item.exit_code !== 0) || item.status === 'failed';
      const observation: Step = {
        type: 'observation',
        tool: CODEX_TOOLS.command,
        output: boundedText(item.aggregated_output),
      };
      if (failed) observation.error = true;
      // The command is the shell line Codex ran (`/bin/bash -lc 'make test'`): the detector reads
      // `{ command }` as the script it runs, as it reads the rollout's `{ cmd: 'make test' }`.
      const input = { command: isArgv(item.command) ? item.command : boundedText(item.command) };
      return [{ type: 'action', tool: CODEX_TOOLS.command, input }, observation];
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
      const tool = `${boundedText(item.server, 200)}/${boundedText(item.tool, 200)}`;
      const error = recordOf(item.error);
      const observation: Step =
        error === undefined && item.status !== 'failed'
          ? { type: 'observation', tool, output: boundedText(item.result) }
          : { type: 'observation', tool, output: boundedText(error?.message ?? item.error), error: true };
      return [{ type: 'action', tool, input: item.arguments ?? {} }, observation];
    }
    case 'web_search':
      return [{ type: 'action', tool: CODEX_TOOLS.webSearch, input: boundedText(item.query) }];
    default:
      return undefined;
  }
}

/**
 * OpenAI Codex CLI's `codex exec --json` events as steps (checked against 0.169.0): a finished item
 * (`item.completed`) gives them. A `command_execution` is an action (`tool` `shell`, `input`
 * `{ command }`, which the detector reads as the command line) and an observation (`output` its
 * `aggregated_output`, `error` when its exit code is not 0 or its status is `failed`); a
 * `file_change` an action (`tool` `apply_patch`, `input` its changes); an `mcp_tool_call` an action
 * (`server/tool`, its arguments) and an observation of its result or error; a `web_search` an
 * action. An `agent_message` is a message only when no tool call follows it before the turn ends
 * (`turn.completed`, `turn.failed`); `reasoning` never is (see {@link TurnText}).
 */
export class CodexExecSteps {
  private readonly text = new TurnText();

  /** The steps of one event. */
  event(event: Record<string, unknown>): Step[] {
    if (event.type === 'turn.completed' || event.type === 'turn.failed') return this.text.flush();
    if (event.type !== 'item.completed') return [];
    const item = recordOf(event.item);
    if (item === undefined) return [];
    if (item.type === 'agent_message') {
      this.text.add(item.text);
      return [];
    }
    const steps = toolSteps(item);
    if (steps === undefined) return [];
    this.text.drop();
    return steps;
  }

  /** The stream ended: the held text. */
  end(): Step[] {
    return this.text.flush();
  }
}
