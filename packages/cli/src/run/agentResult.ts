import { errorSignature } from '@loopguard/core/breaker';
import { type InfrastructureKind, recordOf, resetTimeOf } from '@loopguard/core/internal';

/** Lines at the end of the output that decide whether an iteration hit infrastructure trouble. */
export const TAIL_LINES = 20;

/**
 * What the agent reported about itself in its structured result: Claude Code's (`claude -p
 * --output-format json|stream-json`) or Gemini CLI's (`gemini --output-format stream-json`).
 */
export interface StructuredResult {
  /** Claude Code: `success`, `error_max_turns`, `error_during_execution`, …; Gemini CLI: `success` or the error's type. */
  subtype: string | null;
  /** Whether the agent reported an error. */
  isError: boolean;
  /** The final text; when the agent reported an error, the error's message. */
  text: string | null;
  /** Turns the agent took (Claude Code only). */
  numTurns: number | null;
  /** Cost in USD, when reported (Claude Code only). */
  costUsd: number | null;
  /** Input and output tokens, when reported. */
  tokens: { input: number; output: number } | null;
  /** The tools of `permission_denials` (the calls the agent was denied; Claude Code only). */
  permissionDenials: string[];
}

/** Reads one agent's `{"type":"result"}` object; `before` are the output's lines before it. */
type ResultReader = (result: Record<string, unknown>, before: readonly string[]) => StructuredResult;

function parseObject(line: string): Record<string, unknown> | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    return recordOf(JSON.parse(trimmed)) ?? null;
  } catch {
    return null;
  }
}

function tokensOf(usage: unknown): StructuredResult['tokens'] {
  const { input_tokens: input, output_tokens: output } = (usage ?? {}) as Record<string, unknown>;
  return typeof input === 'number' && typeof output === 'number' ? { input, output } : null;
}

/** Claude Code: `subtype`, `is_error`, the final text in `result`, `usage`, `permission_denials`. */
const claudeResult: ResultReader = (value) => ({
  subtype: typeof value.subtype === 'string' ? value.subtype : null,
  isError: value.is_error === true,
  text: typeof value.result === 'string' ? value.result : null,
  numTurns: typeof value.num_turns === 'number' ? value.num_turns : null,
  costUsd: typeof value.total_cost_usd === 'number' ? value.total_cost_usd : null,
  tokens: tokensOf(value.usage),
  permissionDenials: Array.isArray(value.permission_denials)
    ? value.permission_denials.flatMap((d: unknown) => {
        const tool = (d as { tool_name?: unknown } | null)?.tool_name;
        return typeof tool === 'string' ? [tool] : [];
      })
    : [],
});

/**
 * Gemini CLI 0.61 (checked against its source): `status` (`success` | `error`), `error: { type,
 * message }`, token counts in `stats`. The final text is not in the result: it is the assistant's
 * `message` events (streamed in pieces) right before it.
 */
const geminiResult: ResultReader = (value, before) => {
  const failed = value.status !== 'success';
  const error = (value.error ?? {}) as Record<string, unknown>;
  const pieces: string[] = [];
  for (let i = before.length - 1; i >= 0; i--) {
    const line = before[i] ?? '';
    if (line.trim() === '') continue;
    const event = parseObject(line);
    if (event?.type !== 'message' || event.role !== 'assistant') break;
    if (typeof event.content === 'string') pieces.unshift(event.content);
  }
  const finalText = pieces.length === 0 ? null : pieces.join('');
  return {
    subtype: failed ? (typeof error.type === 'string' ? error.type : 'error') : 'success',
    isError: failed,
    text: failed ? (typeof error.message === 'string' ? error.message : finalText) : finalText,
    numTurns: null,
    costUsd: null,
    tokens: tokensOf(value.stats),
    permissionDenials: [],
  };
};

/** Gemini CLI's result has `status` and `stats`; Claude Code's `subtype` and `is_error`. */
function readerOf(result: Record<string, unknown>): ResultReader {
  return typeof result.status === 'string' && 'stats' in result && !('subtype' in result)
    ? geminiResult
    : claudeResult;
}

/**
 * The structured result an agent ended with, read by its own format: Claude Code's `result` object
 * (`--output-format json` prints one, `stream-json` ends with one line of it) or Gemini CLI's
 * `stream-json` `result` event (its final text taken from the assistant messages before it); `null`
 * when the output has none.
 * @example structuredResultOf('{"type":"result","subtype":"success","is_error":false,"result":"done"}')?.text; // 'done'
 */
export function structuredResultOf(stdout: string): StructuredResult | null {
  const lines = stdout.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - 5; i--) {
    const value = parseObject(lines[i] ?? '');
    if (value?.type !== 'result') continue;
    return readerOf(value)(value, lines.slice(0, i));
  }
  return null;
}

/** The last {@link TAIL_LINES} non-empty lines of `output`. */
export function tailOf(output: string): string {
  return output
    .split(/\r?\n/)
    .filter((line) => line.trim().length > 0)
    .slice(-TAIL_LINES)
    .join('\n');
}

/**
 * Whether an iteration hit infrastructure trouble (rate limit, HTTP 429/5xx, network timeout), and
 * the reset time the agent stated. Judged from the structured result when there is one, else from
 * the last lines of the output — never from file contents the agent echoed earlier.
 * @example infrastructureOf('…\nError: 429 Too Many Requests', null, 0).kind; // 'rate_limit'
 */
export function infrastructureOf(
  output: string,
  structured: StructuredResult | null,
  now: number,
): { kind: InfrastructureKind | null; resetAt: number | null } {
  const evidence = structured !== null ? (structured.isError ? (structured.text ?? '') : '') : tailOf(output);
  const signature = errorSignature(evidence);
  if (signature.kind !== 'infrastructure') return { kind: null, resetAt: null };
  return { kind: signature.infrastructure, resetAt: resetTimeOf(evidence, now) };
}

/** Whether the agent claimed completion: the promise appears in its final text or its output's last lines. */
export function completionClaimed(
  output: string,
  structured: StructuredResult | null,
  promise: string,
): boolean {
  if (structured?.text?.includes(promise)) return true;
  return tailOf(output).includes(promise);
}
