import { boundedText } from '../../kernel/boundedText.js';
import { recordOf } from '../../kernel/jsonValues.js';
import type { Step } from '../../steps/step.js';
import { CallNames } from '../callNames.js';
import { TurnText } from '../turnText.js';
import { codexToolName } from './codexTools.js';

/** `Process exited with code 1` (exec_command), or the exit code of an older JSON output. */
const EXIT_CODE = /(?:^|\n)Process exited with code (-?\d+)/;

/**
 * Codex (0.169.0) answers a call it refused before it ran with one of these as the whole output: a
 * tool it does not have (`unsupported call: sleep`), arguments it could not read (`failed to parse
 * function arguments: missing field `cmd` …`). A command's own output starts with its header.
 */
const CODEX_REFUSAL = /^(?:unsupported call: |failed to parse function arguments: )/;

/** Where exec_command's output starts, after its header. */
const OUTPUT_MARK = '\nOutput:\n';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A call's input: its arguments object (a JSON string is parsed), else its text. */
function callInput(item: Record<string, unknown>): unknown {
  if (item.type === 'custom_tool_call') return boundedText(item.input);
  const args = item.type === 'local_shell_call' ? item.action : item.arguments;
  const parsed = typeof args === 'string' ? (parseJson(args) ?? args) : args;
  return parsed ?? {};
}

/** A call's output and whether it failed: a non-zero exit code, or a failure the CLI reports. */
function callOutput(output: unknown): { output: string; error: boolean } {
  if (typeof output !== 'string') return { output: boundedText(output), error: false };
  const older = recordOf(output.startsWith('{') ? parseJson(output) : undefined);
  if (older !== undefined && typeof older.output === 'string') {
    const code = recordOf(older.metadata)?.exit_code;
    return { output: older.output, error: typeof code === 'number' && code !== 0 };
  }
  // exec_command's header (chunk id, wall time, token count) changes every call: only its output counts
  const body = output.indexOf(OUTPUT_MARK);
  const code = EXIT_CODE.exec(body === -1 ? output : output.slice(0, body))?.[1];
  return {
    output: body === -1 ? output : output.slice(body + OUTPUT_MARK.length),
    error: code !== undefined && code !== '0',
  };
}

function messageText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      const block = recordOf(part);
      return typeof block?.text === 'string' ? block.text : '';
    })
    .join('');
}

/**
 * A Codex rollout's `response_item`s as steps (checked against 0.169.0): a `function_call`,
 * `custom_tool_call` (apply_patch) or `local_shell_call` is an action (`tool` its name, with the
 * command tools named `shell` as in `codex exec --json`; `input` its arguments object, which the
 * detector reads as the command line for a shell call), its `*_output` an observation (`error` when
 * the command exited non-zero, `refused` when Codex refused the call before it ran; exec_command's
 * volatile header left out). An assistant `message` is
 * a message only when no call follows it before the user's next message or the rollout's end (see
 * {@link TurnText}); reasoning and the user's and developer's messages never are.
 */
export class CodexRolloutSteps {
  private readonly calls = new CallNames();
  private readonly text = new TurnText();

  /** The steps of one `response_item` payload. */
  item(item: Record<string, unknown>): Step[] {
    switch (item.type) {
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        this.text.drop();
        const tool = codexToolName(item.name);
        this.calls.open(item.call_id, tool);
        return [{ type: 'action', tool, input: callInput(item) }];
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output': {
        const { output, error } = callOutput(item.output);
        const step: Step = { type: 'observation', output };
        const tool = this.calls.close(item.call_id);
        if (tool !== undefined) step.tool = tool;
        if (error) step.error = true;
        if (typeof item.output === 'string' && CODEX_REFUSAL.test(item.output)) step.refused = true;
        return [step];
      }
      case 'message':
        if (item.role !== 'assistant') return this.text.flush();
        this.text.add(messageText(item.content));
        return [];
      default:
        return [];
    }
  }

  /** The rollout ended: the held text. */
  end(): Step[] {
    return this.text.flush();
  }
}
