import { numberOf, recordOf } from '@loopguard/core/internal';
import { GeminiCliSteps, geminiChatUsage } from '@loopguard/core/steps';
import { type GuardVerdict, geminiGuardVerdicts, neverRan } from './guardVerdicts.js';
import { confirmedVerdicts, recordedVerdicts } from './recordedVerdicts.js';
import {
  NOTHING,
  noteStart,
  type SessionMeta,
  type TranscriptParser,
  type TranscriptRead,
} from './TranscriptParser.js';

/** loopguard's own nudges and stops in a reply's tool calls, as its transcript reads (see {@link geminiGuardVerdicts}). */
function guardOf(reply: Record<string, unknown>): GuardVerdict[] {
  const calls = Array.isArray(reply.toolCalls) ? reply.toolCalls : [];
  return calls.flatMap((call) => {
    const record = recordOf(call);
    return record === undefined ? [] : geminiGuardVerdicts(record);
  });
}

/**
 * A Gemini CLI chat (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, checked against 0.61.0): a
 * header line (`sessionId`, `projectHash`, `startTime`), then message records, each written again
 * when it changes (same `id`; a model reply gets its `toolCalls` in a later copy), and `$set`
 * updates. A model (`gemini`) message, in its last copy, is read by Gemini CLI's one translation
 * ({@link GeminiCliSteps.chatReply}: each tool call an action and the observation of its result,
 * the text a message only when the reply calls no tool); its `tokens.total` are the tokens. Thoughts, user messages (and the tool
 * responses they carry, which repeat the calls' results), `info` and `error` records give none.
 * loopguard's own nudges and stops in the calls' results are noted as such ({@link geminiGuardVerdicts});
 * a call it refused (the model's own against loopguard), or its spend guard denied, is counted, never observed.
 */
export class GeminiChatParser implements TranscriptParser {
  readonly agent = 'gemini';
  readonly format = 'gemini-chat';
  readonly meta: SessionMeta = { hasUsage: false };
  /** The model reply whose later copies may still come. */
  private held: Record<string, unknown> | undefined;
  private readonly steps = new GeminiCliSteps();
  /** The session's verdicts in its project's `state.db` not matched yet ({@link recordedVerdicts}); `null`: not looked up. */
  private recorded: string[] | undefined | null = null;

  /**
   * @param project - the folder the CLI filed the chat under (`tmp/<project>/chats`).
   * @param parentSessionId - a subagent's chat: the session it belongs to. @default none (a session's own chat)
   */
  constructor(project?: string, parentSessionId?: string) {
    if (project !== undefined) this.meta.project = project;
    if (parentSessionId !== undefined) this.meta.parentSessionId = parentSessionId;
  }

  push(record: Record<string, unknown>): TranscriptRead {
    if (typeof record.sessionId === 'string' && record.id === undefined) {
      this.meta.sessionId ??= record.sessionId;
      noteStart(this.meta, record.startTime);
      return NOTHING;
    }
    if (typeof record.id !== 'string' || typeof record.type !== 'string') return NOTHING;
    noteStart(this.meta, record.timestamp);
    if (this.held !== undefined && this.held.id === record.id) {
      this.held = record;
      return NOTHING;
    }
    const read = this.release();
    if (record.type === 'gemini') this.held = record;
    return read;
  }

  end(): TranscriptRead {
    const read = this.release();
    const last = this.steps.end();
    // the held reply's usage and verdicts go with its steps (its dollars were lost with them)
    return last.length === 0 ? read : { ...read, steps: [...read.steps, ...last] };
  }

  /**
   * The verdicts loopguard gave of `guard`: a tool's result can read as loopguard's nudge (a file
   * `read_file` returns as it is, ending in `</untrusted_context>` and a `<hook_context>` of its
   * own), which the chat cannot tell from Gemini CLI's; where the project's `state.db` knows the
   * session, a nudge or stop counts only as one it recorded ({@link confirmedVerdicts}).
   */
  private confirmed(read: GuardVerdict[]): { guard?: GuardVerdict[] } {
    let guard = read;
    if (guard.some((verdict) => verdict.action === 'nudge' || verdict.action === 'stop')) {
      if (this.recorded === null)
        this.recorded = recordedVerdicts('gemini', this.meta.project, this.meta.sessionId);
      guard = confirmedVerdicts(guard, this.recorded);
    }
    return guard.length === 0 ? {} : { guard };
  }

  /** The held reply's steps and tokens, once its last copy is known. */
  private release(): TranscriptRead {
    const reply = this.held;
    this.held = undefined;
    if (reply === undefined) return NOTHING;
    // a call loopguard refused, or its spend guard denied, never ran: counted, never observed
    let unobservedCalls = 0;
    const steps = this.steps.chatReply(reply, (call) => {
      const unrun = neverRan(geminiGuardVerdicts(call));
      if (unrun) unobservedCalls++;
      return unrun;
    });
    const read = {
      steps,
      ...(unobservedCalls === 0 ? {} : { unobservedCalls }),
      ...this.confirmed(guardOf(reply)),
    };
    const tokens = recordOf(reply.tokens);
    if (tokens === undefined) return { ...read, tokens: 0 };
    this.meta.hasUsage = true;
    const usage = geminiChatUsage(reply);
    return { ...read, tokens: numberOf(tokens.total), ...(usage === undefined ? {} : { usage }) };
  }
}
