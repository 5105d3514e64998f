import { recordOf } from '@loopguard/core/internal';
import {
  ClaudeStreamJsonParser,
  CodexJsonParser,
  GeminiStreamJsonParser,
  JsonlStepParser,
  type StepLineParser,
} from '@loopguard/core/steps';
import {
  NOTHING,
  noteStart,
  type ScanAgent,
  type SessionMeta,
  type TranscriptParser,
  type TranscriptRead,
  usageTokens,
} from './TranscriptParser.js';

/** The live output formats `loopguard run --agent-stream` reads, and plain step JSONL. */
const STREAMS = {
  'claude-stream-json': { agent: 'claude', parser: () => new ClaudeStreamJsonParser() },
  'codex-exec-json': { agent: 'codex', parser: () => new CodexJsonParser() },
  'gemini-stream-json': { agent: 'gemini', parser: () => new GeminiStreamJsonParser() },
  'steps-jsonl': { agent: 'steps', parser: () => new JsonlStepParser() },
} as const satisfies Record<string, { agent: ScanAgent; parser: () => StepLineParser }>;

/** A format {@link StreamParser} reads. */
export type StreamFormat = keyof typeof STREAMS;

/** The session id and usage a stream's events carry (each format names them its own way). */
function noteEvent(meta: SessionMeta, event: Record<string, unknown>): number {
  const id = event.session_id ?? event.thread_id;
  if (typeof id === 'string') meta.sessionId ??= id;
  if (typeof event.cwd === 'string') meta.project ??= event.cwd;
  noteStart(meta, event.timestamp);
  const usage = recordOf(event.usage) ?? recordOf(recordOf(event.message)?.usage);
  if (usage === undefined || event.type === 'result') return 0;
  meta.hasUsage = true;
  return usageTokens(usage);
}

/**
 * An agent's live output as `loopguard run` keeps it (`.loopguard/runs/<id>/iterations/<n>/output.log`),
 * or plain step JSONL: read with the same line parsers as `--agent-stream` (core's
 * `ClaudeStreamJsonParser`, `CodexJsonParser`, `GeminiStreamJsonParser`, `JsonlStepParser`).
 */
export class StreamParser implements TranscriptParser {
  readonly agent: ScanAgent;
  readonly meta: SessionMeta = { hasUsage: false };
  private readonly lines: StepLineParser;
  private lastReply: unknown;

  constructor(readonly format: StreamFormat) {
    this.agent = STREAMS[format].agent;
    this.lines = STREAMS[format].parser();
  }

  push(record: Record<string, unknown>, line: string): TranscriptRead {
    const steps = this.lines.push(line);
    const reply = recordOf(record.message)?.id;
    // Claude Code writes one event per content block of a reply, each with the reply's usage
    const repeated = reply !== undefined && reply === this.lastReply;
    this.lastReply = reply ?? this.lastReply;
    const tokens = this.format === 'steps-jsonl' || repeated ? 0 : noteEvent(this.meta, record);
    return steps.length === 0 && tokens === 0 ? NOTHING : { steps, tokens };
  }

  end(): TranscriptRead {
    const steps = this.lines.end?.() ?? [];
    return steps.length === 0 ? NOTHING : { steps, tokens: 0 };
  }
}
