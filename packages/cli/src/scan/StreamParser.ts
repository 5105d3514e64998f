import { tokensOf, type UsageRecord, type UsageStreamFormat, usageStream } from '@loopguard/core/spend';
import {
  ClaudeStreamJsonParser,
  CodexJsonParser,
  GeminiStreamJsonParser,
  JsonlStepParser,
  type StepLineParser,
} from '@loopguard/core/steps';
import { streamSessionId } from '../run/streamSessionId.js';
import {
  NOTHING,
  noteStart,
  type ScanAgent,
  type SessionMeta,
  type TranscriptParser,
  type TranscriptRead,
} from './TranscriptParser.js';

/** The live output formats `loopguard run --agent-stream` reads, and plain step JSONL. */
const STREAMS = {
  'claude-stream-json': { agent: 'claude', parser: () => new ClaudeStreamJsonParser(), usage: 'claude' },
  'codex-exec-json': { agent: 'codex', parser: () => new CodexJsonParser(), usage: 'codex' },
  'gemini-stream-json': { agent: 'gemini', parser: () => new GeminiStreamJsonParser(), usage: 'gemini' },
  'steps-jsonl': { agent: 'jsonl', parser: () => new JsonlStepParser(), usage: undefined },
} as const satisfies Record<
  string,
  { agent: ScanAgent; parser: () => StepLineParser; usage: UsageStreamFormat | undefined }
>;

/** A format {@link StreamParser} reads. */
export type StreamFormat = keyof typeof STREAMS;

/** The session id, folder and start a stream's events carry (each format names them its own way). */
function noteEvent(meta: SessionMeta, event: Record<string, unknown>): void {
  const id = streamSessionId(event);
  if (id !== undefined) meta.sessionId ??= id;
  if (typeof event.cwd === 'string') meta.project ??= event.cwd;
  noteStart(meta, event.timestamp);
}

/**
 * An agent's live output as `loopguard run` keeps it (`.loopguard/runs/<id>/iterations/<n>/output.log`),
 * or plain step JSONL: read with the same line parsers as `--agent-stream` (core's
 * `ClaudeStreamJsonParser`, `CodexJsonParser`, `GeminiStreamJsonParser`, `JsonlStepParser`), its
 * tokens and their models with the same usage reader as `--agent-stream`'s spend guard (core's
 * `usageStream`: Claude Code's replies as they start, then each `result`'s final counts per model).
 */
export class StreamParser implements TranscriptParser {
  readonly agent: ScanAgent;
  readonly meta: SessionMeta = { hasUsage: false };
  private readonly lines: StepLineParser;
  private readonly usage: ((event: unknown, at: number) => UsageRecord[]) | undefined;
  /** Reply ids counted (Claude Code writes one event per content block of a reply, each with its usage). */
  private readonly counted = new Set<string>();

  constructor(readonly format: StreamFormat) {
    this.agent = STREAMS[format].agent;
    this.lines = STREAMS[format].parser();
    const usage = STREAMS[format].usage;
    this.usage = usage === undefined ? undefined : usageStream(usage);
  }

  push(record: Record<string, unknown>, line: string): TranscriptRead {
    // a subagent's steps are its run's, not the session's (as a sidechain in a transcript); its
    // replies' tokens are the session's spend
    const read = this.lines.push(line, record); // the line is parsed once
    const steps = (this.lines.subagent ?? null) === null ? read : [];
    if (this.usage === undefined) return steps.length === 0 ? NOTHING : { steps, tokens: 0 };
    noteEvent(this.meta, record);
    const usage = this.usage(record, 0).filter(
      (one) => one.replyId === undefined || one.adjustment === true || this.once(one.replyId),
    );
    if (usage.length > 0) this.meta.hasUsage = true;
    const tokens = usage.reduce((sum, one) => sum + tokensOf(one), 0);
    if (steps.length === 0 && tokens === 0) return NOTHING;
    return tokens === 0 ? { steps, tokens } : { steps, tokens, usage };
  }

  /** Whether the reply `id` is counted for the first time (the ids of a run's replies: a few thousand at most). */
  private once(id: string): boolean {
    if (this.counted.has(id)) return false;
    this.counted.add(id);
    return true;
  }

  end(): TranscriptRead {
    const steps = this.lines.end?.() ?? [];
    return steps.length === 0 ? NOTHING : { steps, tokens: 0 };
  }
}
