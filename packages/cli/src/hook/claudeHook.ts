import { boundedText } from '@loopguard/core/internal';
import { claudeBatchResult, claudeToolResponseText } from '@loopguard/core/steps';
import {
  type BatchCall,
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
import { subagentRunOf } from './subagentRun.js';

/** How much of the turn's last text marks its reply in the transcript. */
const MARKER_CHARS = 200;

/**
 * What the transcript holds once Claude Code has written the reply an event follows (it may call
 * a hook, on the fast path especially, before it writes that reply): the reply that asked for the
 * tool call carries the call's `tool_use_id` (`"toolu_…"`, before and after the call); the turn's last reply carries the
 * text of `last_assistant_message`, JSON-escaped as the transcript writes it (its start), in bytes
 * not read yet, or as the transcript's last reply, read at another event of the turn (`replyUnread`).
 */
function replyMarkerOf(
  event: Record<string, unknown>,
  eventName: string,
): { replyMarker?: string; replyUnread?: boolean } {
  if (eventName === 'PreToolUse' || eventName === 'PostToolUse' || eventName === 'PostToolUseFailure') {
    const id = event.tool_use_id;
    return typeof id === 'string' && id !== '' ? { replyMarker: JSON.stringify(id) } : {};
  }
  const text = event.last_assistant_message;
  if (eventName !== 'Stop' || typeof text !== 'string' || text.trim() === '') return {};
  // cut where no surrogate pair is split: JSON.stringify would escape a lone half
  const start = text.slice(0, MARKER_CHARS).replace(/[\ud800-\udbff]$/, '');
  // no event after the turn's last reply could have read it: an earlier match is an earlier reply
  return { replyMarker: JSON.stringify(start).slice(1, -1), replyUnread: true };
}

/**
 * The calls of a `PostToolBatch` event (`tool_calls`), each read by Claude Code's one translation
 * (`claudeBatchResult`: a `<tool_use_error>` is its refusal, as the model received it).
 * @throws HookInputError when `tool_calls` is not a list of calls with a tool name
 */
function batchCallsOf(event: Record<string, unknown>): BatchCall[] {
  const calls = event.tool_calls;
  if (!Array.isArray(calls)) throw new HookInputError('event field tool_calls must be a list');
  return calls.map((value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new HookInputError('event field tool_calls must hold objects');
    const call = value as Record<string, unknown>;
    return {
      ...callIdOf(call, 'tool_use_id'),
      ...toolCallOf(call),
      ...claudeBatchResult(call.tool_response),
    };
  });
}

/** Claude Code's events the hook is registered for. */
export const CLAUDE_HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Stop',
  'SessionEnd',
] as const;

/**
 * Claude Code's hook dialect (verified against 2.1.330 with a scripted Messages API). The tool's
 * output is read by Claude Code's one translation (`claudeToolResponseText`, core), as the stream
 * and the transcript read it.
 * - a nudge goes in `hookSpecificOutput.additionalContext` of `PostToolUse` / `PostToolUseFailure`:
 *   Claude Code adds it to the next request as "<event>:<tool> hook additional context: ...";
 * - a stop before the call: `PreToolUse` with `permissionDecision: "deny"` (the reason is the tool
 *   result the model sees), `continue: false` and `stopReason` (the session ends,
 *   `terminal_reason: "hook_stopped"`);
 * - a stop after the call: `continue: false` and `stopReason`, with the message as context.
 * - a notice to the user (a refused `.loopguard`): `systemMessage` alone, which 2.1.330 shows as a
 *   hook message and hands to no request;
 */
export const claudeHook: HookDialect = {
  agent: 'claude',
  parse(payload, env) {
    const event = eventObject(payload);
    const eventName = stringField(event, 'hook_event_name');
    const base = {
      ...subagentRunOf(event),
      projectDir: projectDirOf(event, env, 'CLAUDE_PROJECT_DIR'),
      eventName,
      ...callIdOf(event, 'tool_use_id'),
      ...transcriptOf(event),
      ...replyMarkerOf(event, eventName),
    };
    switch (eventName) {
      case 'PreToolUse':
        return {
          ...base,
          kind: 'before_tool',
          ...toolCallOf(event),
        };
      case 'PostToolUse':
        return {
          ...base,
          kind: 'after_tool',
          ...toolCallOf(event),
          output: claudeToolResponseText(event.tool_response),
          error: false,
        };
      case 'PostToolUseFailure':
        return {
          ...base,
          kind: 'after_tool',
          ...toolCallOf(event),
          output: boundedText(event.error),
          error: true,
        };
      case 'PostToolBatch':
        return { ...base, kind: 'after_batch', calls: batchCallsOf(event) };
      case 'Stop':
        return { ...base, kind: 'agent_stop', text: boundedText(event.last_assistant_message) };
      case 'SessionEnd':
        return { ...base, kind: 'session_end' };
      default:
        throw new HookInputError(`unknown Claude Code event ${JSON.stringify(eventName)}`);
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
    const specific =
      event.kind === 'before_tool'
        ? {
            hookEventName: event.eventName,
            permissionDecision: 'deny',
            permissionDecisionReason: reply.message,
          }
        : contextFor(event.eventName, reply.message);
    // a refusal leaves the session going; a stop ends it
    if (reply.kind === 'refuse') return JSON.stringify({ hookSpecificOutput: specific });
    return JSON.stringify({ continue: false, stopReason: reply.stopReason, hookSpecificOutput: specific });
  },
};
