import { jsonTextOf, openCall } from '@loopguard/core/internal';
import type { Step } from '@loopguard/core/steps';
import {
  NOTHING,
  noteStart,
  numberOf,
  recordOf,
  type SessionMeta,
  type TranscriptParser,
  type TranscriptRead,
} from './TranscriptParser.js';

/** `Process exited with code 1` (exec_command), or the exit code of an older JSON output. */
const EXIT_CODE = /(?:^|\n)Process exited with code (-?\d+)/;

/** Where exec_command's output starts, after its header. */
const OUTPUT_MARK = '\nOutput:\n';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A call's input: the command it runs (`cmd`, `command`), else its arguments. */
function callInput(args: unknown): unknown {
  const parsed = typeof args === 'string' ? (parseJson(args) ?? args) : args;
  const record = recordOf(parsed);
  const command = record?.cmd ?? record?.command;
  if (typeof command === 'string') return command;
  if (Array.isArray(command)) return command.map(String).join(' ');
  return parsed ?? {};
}

/** A call's output and whether it failed: a non-zero exit code, or a failure the CLI reports. */
function callOutput(output: unknown): { output: string; error: boolean } {
  if (typeof output !== 'string')
    return { output: jsonTextOf(output ?? '', 'function_call_output output'), error: false };
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
 * A Codex rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, checked against 0.169.0): each
 * line is `{ timestamp, type, payload }`. Of the `response_item`s, a `function_call`,
 * `custom_tool_call` (apply_patch) or `local_shell_call` is an action (`tool` its name, `input` the
 * command it runs or its arguments), its `*_output` an observation (`error` when the command
 * exited non-zero), an assistant `message` a message; reasoning, the user's and developer's
 * messages and the `event_msg` copies of items are not steps. Tokens come from the `token_count`
 * events (the growth of the session's total).
 */
export class CodexRolloutParser implements TranscriptParser {
  readonly agent = 'codex';
  readonly format = 'codex-rollout';
  readonly meta: SessionMeta = { hasUsage: false };
  private totalTokens = 0;
  /** call_id → tool name, so that outputs name their tool. */
  private readonly toolNames = new Map<string, string>();

  /** Only items, token counts and the session's header matter. */
  mayMatter(line: string): boolean {
    return (
      line.includes('"response_item"') || line.includes('"token_count"') || line.includes('"session_meta"')
    );
  }

  push(record: Record<string, unknown>): TranscriptRead {
    const payload = recordOf(record.payload);
    if (payload === undefined) return NOTHING;
    noteStart(this.meta, record.timestamp);
    switch (record.type) {
      case 'session_meta':
        if (typeof payload.id === 'string') this.meta.sessionId ??= payload.id;
        if (typeof payload.cwd === 'string') this.meta.project ??= payload.cwd;
        return NOTHING;
      case 'response_item':
        return { steps: this.itemSteps(payload), tokens: 0 };
      case 'event_msg':
        return payload.type === 'token_count' ? { steps: [], tokens: this.tokens(payload) } : NOTHING;
      default:
        return NOTHING;
    }
  }

  end(): TranscriptRead {
    return NOTHING;
  }

  private tokens(payload: Record<string, unknown>): number {
    const total = recordOf(recordOf(payload.info)?.total_token_usage)?.total_tokens;
    if (typeof total !== 'number') return 0;
    this.meta.hasUsage = true;
    const spent = Math.max(0, numberOf(total) - this.totalTokens);
    this.totalTokens = Math.max(this.totalTokens, numberOf(total));
    return spent;
  }

  private inputOf(item: Record<string, unknown>): unknown {
    if (item.type === 'custom_tool_call')
      return typeof item.input === 'string'
        ? item.input
        : jsonTextOf(item.input ?? '', 'custom_tool_call input');
    return callInput(item.type === 'local_shell_call' ? item.action : item.arguments);
  }

  private itemSteps(item: Record<string, unknown>): Step[] {
    switch (item.type) {
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const tool = typeof item.name === 'string' && item.name !== '' ? item.name : 'shell';
        if (typeof item.call_id === 'string') openCall(this.toolNames, item.call_id, tool);
        return [{ type: 'action', tool, input: this.inputOf(item) }];
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output': {
        const id = typeof item.call_id === 'string' ? item.call_id : undefined;
        const tool = id === undefined ? undefined : this.toolNames.get(id);
        if (id !== undefined) this.toolNames.delete(id);
        const { output, error } = callOutput(item.output);
        const step: Step = { type: 'observation', output };
        if (tool !== undefined) step.tool = tool;
        if (error) step.error = true;
        return [step];
      }
      case 'message': {
        const text = item.role === 'assistant' ? messageText(item.content) : '';
        return text.trim() === '' ? [] : [{ type: 'message', text }];
      }
      default:
        return [];
    }
  }
}
