import { errorSignature } from '@loopguard/core/breaker';
import { type InfrastructureKind, resetTimeOf } from '@loopguard/core/internal';

/** Lines at the end of the output that decide whether an iteration hit infrastructure trouble. */
export const TAIL_LINES = 20;

/** What the agent reported about itself in a structured result (`claude -p --output-format json|stream-json`). */
export interface StructuredResult {
  /** `success`, `error_max_turns`, `error_during_execution`, … */
  subtype: string | null;
  /** Whether the agent reported an error. */
  isError: boolean;
  /** The final text. */
  text: string | null;
  /** Turns the agent took. */
  numTurns: number | null;
  /** Cost in USD, when reported. */
  costUsd: number | null;
  /** Input and output tokens, when reported. */
  tokens: { input: number; output: number } | null;
  /** The tools of `permission_denials` (the calls the agent was denied). */
  permissionDenials: string[];
}

/**
 * The `result` object of a Claude Code run (`--output-format json` prints one, `stream-json` ends
 * with one line of it), or `null` when the output has none.
 * @example structuredResultOf('{"type":"result","subtype":"success","is_error":false,"result":"done"}')?.text; // 'done'
 */
export function structuredResultOf(stdout: string): StructuredResult | null {
  const lines = stdout.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - 5; i--) {
    const line = lines[i]?.trim() ?? '';
    if (!line.startsWith('{')) continue;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (value.type !== 'result') continue;
    const usage = value.usage as Record<string, unknown> | undefined;
    return {
      subtype: typeof value.subtype === 'string' ? value.subtype : null,
      isError: value.is_error === true,
      text: typeof value.result === 'string' ? value.result : null,
      numTurns: typeof value.num_turns === 'number' ? value.num_turns : null,
      costUsd: typeof value.total_cost_usd === 'number' ? value.total_cost_usd : null,
      tokens:
        usage !== undefined &&
        typeof usage.input_tokens === 'number' &&
        typeof usage.output_tokens === 'number'
          ? { input: usage.input_tokens, output: usage.output_tokens }
          : null,
      permissionDenials: Array.isArray(value.permission_denials)
        ? value.permission_denials.flatMap((d: unknown) => {
            const tool = (d as { tool_name?: unknown } | null)?.tool_name;
            return typeof tool === 'string' ? [tool] : [];
          })
        : [],
    };
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
