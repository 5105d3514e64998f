import { jsonTextOf } from '@loopguard/core/internal';
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

/** A tool call's result text: the response's `error`, else its `output`, else the response as JSON. */
function resultOf(call: Record<string, unknown>): string {
  const parts = Array.isArray(call.result) ? call.result : [];
  const texts = parts.map((part) => {
    const response = recordOf(recordOf(recordOf(part)?.functionResponse)?.response);
    if (response === undefined) return '';
    const value = response.error ?? response.output;
    return typeof value === 'string' ? value : jsonTextOf(response, 'functionResponse response');
  });
  if (texts.some((text) => text !== '')) return texts.join('\n');
  return typeof call.resultDisplay === 'string' ? call.resultDisplay : '';
}

/** A message's text: a string, or the text parts of a list joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => recordOf(part)?.text)
    .filter((t) => typeof t === 'string')
    .join('');
}

/**
 * A Gemini CLI chat (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, checked against 0.61.0): a
 * header line (`sessionId`, `projectHash`, `startTime`), then message records, each written again
 * when it changes (same `id`; a model reply gets its `toolCalls` in a later copy), and `$set`
 * updates. A model (`gemini`) message, in its last copy: its text is a message, each tool call an
 * action (`name`, `args`) and an observation (its response's `error` or `output`; `error` when its
 * status is `error`); its `tokens.total` the tokens. Thoughts, user messages (and the tool
 * responses they carry, which repeat the calls' results), `info` and `error` records give none.
 */
export class GeminiChatParser implements TranscriptParser {
  readonly agent = 'gemini';
  readonly format = 'gemini-chat';
  readonly meta: SessionMeta = { hasUsage: false };
  /** The model reply whose later copies may still come. */
  private held: Record<string, unknown> | undefined;

  /** @param project - the folder the CLI filed the chat under (`tmp/<project>/chats`). */
  constructor(project?: string) {
    if (project !== undefined) this.meta.project = project;
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
    const read = this.end();
    if (record.type === 'gemini') this.held = record;
    return read;
  }

  end(): TranscriptRead {
    const reply = this.held;
    this.held = undefined;
    if (reply === undefined) return NOTHING;
    const steps: Step[] = [];
    const text = textOf(reply.content);
    if (text.trim() !== '') steps.push({ type: 'message', text });
    for (const value of Array.isArray(reply.toolCalls) ? reply.toolCalls : []) {
      const call = recordOf(value);
      if (call === undefined || typeof call.name !== 'string' || call.name === '') continue;
      steps.push({ type: 'action', tool: call.name, input: call.args ?? {} });
      const observation: Step = { type: 'observation', tool: call.name, output: resultOf(call) };
      if (call.status === 'error') observation.error = true;
      steps.push(observation);
    }
    const tokens = recordOf(reply.tokens);
    if (tokens !== undefined) this.meta.hasUsage = true;
    return { steps, tokens: numberOf(tokens?.total) };
  }
}
