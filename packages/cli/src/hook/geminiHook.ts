import { createHash } from 'node:crypto';
import { boundedText } from '@loopguard/core/internal';
import { geminiToolResponse } from '@loopguard/core/steps';
import {
  callIdOf,
  contextFor,
  eventObject,
  type HookDialect,
  type HookEvent,
  HookInputError,
  type HookReply,
  projectDirOf,
  stringField,
  toolCallOf,
  transcriptOf,
} from './hookEvent.js';

/**
 * Gemini CLI 0.61 names no call: its event's `timestamp` is stamped once, before the hooks run, so
 * it is the same for every hook of one event. Two calls finishing in the same millisecond are told
 * apart by their tool and input.
 */
function geminiCallId(
  event: Record<string, unknown>,
  call?: { tool: string; input: unknown },
): { callId?: string } {
  const { callId } = callIdOf(event, 'timestamp');
  if (callId === undefined) return {};
  const hash = createHash('sha1').update(
    call === undefined ? '' : `${call.tool}\n${boundedText(call.input)}`,
  );
  return { callId: `${callId}/${hash.digest('hex').slice(0, 16)}` };
}

/** Gemini CLI's events the hook is registered for. */
export const GEMINI_HOOK_EVENTS = ['BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd'] as const;

/**
 * Gemini CLI's hook dialect (verified against 0.61.0 with a scripted Gemini API). The tool's result
 * is read by Gemini CLI's one translation (`geminiToolResponse`, core), as the stream and the chat
 * read it.
 * - a nudge goes in `hookSpecificOutput.additionalContext` of `AfterTool`: Gemini CLI appends it to
 *   the tool result the model receives, inside `<hook_context>`;
 * - a stop before the call: `BeforeTool` with `decision: "deny"` and `reason`, `continue: false`
 *   and `stopReason` ("Agent execution stopped by hook: ...");
 * - a stop after the call: `continue: false` and `stopReason`, with the message as context.
 * - a notice to the user (a refused `.loopguard`): `systemMessage` alone, shown in the interactive
 *   history (only logged under `-p`), never handed to the model;
 */
export const geminiHook: HookDialect = {
  agent: 'gemini',
  parse(payload, env) {
    const event = eventObject(payload);
    const eventName = stringField(event, 'hook_event_name');
    const base = {
      sessionId: stringField(event, 'session_id'),
      projectDir: projectDirOf(event, env, 'GEMINI_PROJECT_DIR', 'CLAUDE_PROJECT_DIR'),
      eventName,
      // its chat (`chats/session-*.jsonl`): already holds the reply that asked for the call, with its tokens
      ...transcriptOf(event),
    };
    switch (eventName) {
      case 'BeforeTool': {
        const call = toolCallOf(event);
        return { ...base, ...geminiCallId(event, call), kind: 'before_tool', ...call };
      }
      case 'AfterTool': {
        const call = toolCallOf(event);
        return {
          ...base,
          ...geminiCallId(event, call),
          kind: 'after_tool',
          ...call,
          ...geminiToolResponse(event.tool_response),
        };
      }
      case 'AfterAgent':
        return {
          ...base,
          ...geminiCallId(event),
          kind: 'agent_stop',
          text: boundedText(event.prompt_response),
        };
      case 'SessionEnd':
        return { ...base, kind: 'session_end' };
      default:
        throw new HookInputError(`unknown Gemini CLI event ${JSON.stringify(eventName)}`);
    }
  },
  notice(_event: HookEvent, message: string) {
    return JSON.stringify({ systemMessage: message });
  },
  render(event: HookEvent, reply: HookReply) {
    if (reply.kind === 'silent' || event.kind === 'agent_stop' || event.kind === 'session_end') return '';
    if (reply.kind === 'nudge') {
      return JSON.stringify({
        hookSpecificOutput: contextFor(event.eventName, reply.message),
      });
    }
    if (reply.kind === 'refuse') return JSON.stringify({ decision: 'deny', reason: reply.message });
    if (event.kind === 'before_tool') {
      return JSON.stringify({
        decision: 'deny',
        reason: reply.message,
        continue: false,
        stopReason: reply.stopReason,
      });
    }
    return JSON.stringify({
      continue: false,
      stopReason: reply.stopReason,
      hookSpecificOutput: contextFor(event.eventName, reply.message),
    });
  },
};
