import { numberOf } from '@loopguard/core/internal';
import type { UsageRecord } from '@loopguard/core/spend';
import type { Step } from '@loopguard/core/steps';
import type { GuardVerdict } from './guardVerdicts.js';

/** The agents whose sessions `loopguard scan` reads; `jsonl` is loopguard's own JSONL format (`--agent-stream jsonl`'s). */
export type ScanAgent = 'claude' | 'codex' | 'gemini' | 'jsonl';

/** What one record of a transcript adds to its session: steps, and tokens where usage is recorded. */
export interface TranscriptRead {
  /** The steps, in the session's order (often none). */
  steps: Step[];
  /** Tokens the model spent on the reply this record closes (0: none recorded here). */
  tokens: number;
  /**
   * The same reply's usage by kind, with its model, where the format names them (for its price); a
   * list when the record reports several models (a `result`'s final counts).
   */
  usage?: UsageRecord | readonly UsageRecord[];
  /**
   * Tool calls the model made that loopguard refused before they ran (its own calls against
   * loopguard): numbered among the calls, never observed, as the hooks count them. Given after the
   * steps. @default 0
   */
  unobservedCalls?: number;
  /** loopguard's own nudges and stops the record holds (its hooks were on), given after its steps. */
  guard?: GuardVerdict[];
}

/** What a transcript says about its session, learned while it is read. */
export interface SessionMeta {
  /** The agent's own session id (a Claude Code subagent's `agentId`); the file name when the transcript names none. */
  sessionId?: string;
  /** A subagent's run: the session it belongs to (the hooks, `status` and the dashboard name it so too). */
  parentSessionId?: string;
  /** The project: the session's working directory, or the folder the agent filed it under. */
  project?: string;
  /** ISO time of the first record that has one. */
  startedAt?: string;
  /** Whether any record carried token usage (`wastedTokens` is `null` otherwise). */
  hasUsage: boolean;
}

/**
 * Reads one session's transcript, record by record (each line parsed once by the caller), as
 * loopguard steps. Pure: no I/O.
 */
export interface TranscriptParser {
  /** The agent that wrote the transcript. */
  readonly agent: ScanAgent;
  /** The transcript format's name (`claude-transcript`, `codex-rollout`, ...). */
  readonly format: string;
  /** What is known of the session so far. */
  readonly meta: SessionMeta;
  /**
   * A fast look at a raw line before it is parsed: `false` when the record cannot matter (no
   * steps, no usage, nothing about the session), so that it need not be parsed at all. Absent: every line matters.
   */
  mayMatter?(line: string): boolean;
  /** The steps and tokens of one record (`line` is its raw text, for parsers that read lines). */
  push(record: Record<string, unknown>, line: string): TranscriptRead;
  /** What is still held back when the transcript ends (a message waiting for its update). */
  end(): TranscriptRead;
}

/** A read with nothing in it. */
export const NOTHING: TranscriptRead = Object.freeze({ steps: [], tokens: 0 }) as TranscriptRead;

/** Notes the first timestamp of a session. */
export function noteStart(meta: SessionMeta, value: unknown): void {
  if (meta.startedAt === undefined && typeof value === 'string' && value !== '') meta.startedAt = value;
}

/**
 * A record's time as ms since the epoch (its ISO `timestamp`), the time its reply is priced at;
 * `undefined` when it has none (the price book then prices at the time of the scan).
 */
export function timeOf(timestamp: unknown): number | undefined {
  if (typeof timestamp !== 'string') return undefined;
  const ms = Date.parse(timestamp);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Tokens of one reply as Anthropic and OpenAI report them: input (fresh, cache writes and reads) and output. */
export function usageTokens(usage: Record<string, unknown>): number {
  return (
    numberOf(usage.input_tokens) +
    numberOf(usage.cache_creation_input_tokens) +
    numberOf(usage.cache_read_input_tokens) +
    numberOf(usage.output_tokens)
  );
}
