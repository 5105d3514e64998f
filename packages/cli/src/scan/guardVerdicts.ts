import { recordOf } from '@loopguard/core/internal';
import { HOOKS_REMOVED_REFUSED } from '../hook/hooksRemovedCall.js';
import { OWN_STATE_REFUSED } from '../hook/ownStateCall.js';
import { TERMINAL_SHELL_REFUSED } from '../hook/terminalShellCall.js';
import {
  UNHOOKED_AGENT_REFUSED,
  UNHOOKED_HOME_REFUSED,
  UNHOOKED_TRUST_REFUSED,
} from '../hook/unhookedAgentCall.js';

/** A nudge or a stop that loopguard's own hooks gave in a session, as its transcript records it. */
export interface GuardVerdict {
  /**
   * `nudge`: loopguard told the agent of a loop; `stop`: it ended the session in a loop;
   * `spend_stop`: its spend guard ended the session at its budget; `refusal`: it refused the
   * model's own call against loopguard (its state, configuration or off switch, its hooks taken
   * out of the agent's settings, an agent started without them), or a Codex shell kept open for
   * typed commands, and the session went on.
   */
  action: 'nudge' | 'stop' | 'spend_stop' | 'refusal';
  /** The loop kind its message names (`same_error`, `near_duplicate`, ...); `spend` for a spend stop, `own_state`, `hooks_removed`, `unhooked_agent` or `terminal_shell` for a refusal. */
  kind: string;
  /** The message, as the transcript holds it (a stop's is often its first line only). */
  message: string;
  /** A stop that refused its tool call before it ran (a `PreToolUse` denial): the call is not one that ran. */
  denied?: boolean;
}

/**
 * `message` without the `loopguard: ` a hook's stop reason starts with (what Claude Code and Codex
 * show of it): the message as loopguard wrote it, as its entry holds it.
 * @example withoutReasonHead('loopguard: Stopped (same_error): …'); // 'Stopped (same_error): …'
 */
export function withoutReasonHead(message: string): string {
  return message.replace(/^loopguard: /, '');
}

const NUDGE = /^Loop detected \((\w+)\): /;
const STOP = /^(?:loopguard: )?Stopped \((\w+)\): /;
/** The spend guard's stop: `loopguard: this session reached its budget (…); loopguard stopped it.` (or its unknown price's). */
const SPEND_STOP = /^loopguard: (?:this session|this project today) [^\n]*loopguard stopped it\b/;

/**
 * loopguard's verdict in a text its hook's answer became, or `undefined`: a nudge starts `Loop
 * detected (<kind>): `, a stop `Stopped (<kind>): ` (its reason: `loopguard: Stopped (<kind>): `),
 * the spend guard's stop `loopguard: this session reached its budget (…); loopguard stopped it.`.
 * Only texts the agent's harness wrote from a hook's answer are given here (never a tool's output
 * or the model's text, which anyone could make read the same).
 */
export function guardVerdictOf(
  text: unknown,
  action: Exclude<GuardVerdict['action'], 'spend_stop'>,
): GuardVerdict | undefined {
  if (typeof text !== 'string') return undefined;
  const found = (action === 'nudge' ? NUDGE : STOP).exec(text);
  if (found?.[1] !== undefined) return { action, kind: found[1], message: text };
  // a stop is the loop guard's or the spend guard's
  return action === 'stop' && SPEND_STOP.test(text)
    ? { action: 'spend_stop', kind: 'spend', message: text }
    : undefined;
}

/**
 * Whether the call whose result holds `verdicts` never ran: loopguard refused it (a `refusal`), or
 * its spend guard denied it before it ran, its session already stopped at its budget (Gemini CLI's
 * subagent and Codex ask again after the stop). The hooks neither observe nor judge such a call:
 * `scan` counts it and never observes it, so that it is no attempt, no change and no loop (gemscan65).
 */
export function neverRan(verdicts: readonly GuardVerdict[]): boolean {
  return verdicts.some(
    (verdict) => verdict.action === 'refusal' || (verdict.action === 'spend_stop' && verdict.denied === true),
  );
}

/** loopguard's refusals of the model's calls, each with its kind. */
const REFUSALS: ReadonlyArray<readonly [kind: string, message: string]> = [
  ['own_state', OWN_STATE_REFUSED],
  ['hooks_removed', HOOKS_REMOVED_REFUSED],
  ['unhooked_agent', UNHOOKED_AGENT_REFUSED],
  ['unhooked_agent', UNHOOKED_HOME_REFUSED],
  ['unhooked_agent', UNHOOKED_TRUST_REFUSED],
  ['terminal_shell', TERMINAL_SHELL_REFUSED],
];

/** loopguard's refusal of the model's call, when the denial's reason (`text`) is one. */
function refusalOf(text: string): GuardVerdict[] {
  const found = REFUSALS.find(([, message]) => text.startsWith(message.replace(/\.$/, '')));
  return found === undefined ? [] : [{ action: 'refusal', kind: found[0], message: found[1], denied: true }];
}

const CLAUDE_DENIED = /^Error: PreToolUse:[^\n]*? hook error: /;

/**
 * Claude Code (2.1.330) writes a hook's answer as an `attachment` record: `hook_additional_context`
 * (a `PostToolUse` nudge, its `content` a list of texts; also the stop's message after the call,
 * which is the stop where Claude Code did not end the session on it: after a failed call, ended
 * at the next) and `hook_stopped_continuation` (a stop, its `message` the `stopReason`, after the
 * call's result or the `PreToolUse` denial). A
 * `PreToolUse` denial without a stop is the `user` record of the call's result, which names the
 * hook that rejected it (`permissionDecision`) and holds the reason in `toolUseResult`.
 */
export function claudeGuardVerdicts(record: Record<string, unknown>): GuardVerdict[] {
  if (record.type === 'user') {
    const decision = recordOf(record.permissionDecision);
    const result = record.toolUseResult;
    if (decision?.decision !== 'reject' || decision.source !== 'hook' || typeof result !== 'string')
      return [];
    const denied = CLAUDE_DENIED.exec(result);
    return denied === null ? [] : refusalOf(result.slice(denied[0].length));
  }
  const attachment = recordOf(record.attachment);
  if (attachment?.type === 'hook_additional_context' && Array.isArray(attachment.content)) {
    return attachment.content.flatMap(
      (text) => guardVerdictOf(text, 'nudge') ?? guardVerdictOf(text, 'stop') ?? [],
    );
  }
  if (attachment?.type === 'hook_stopped_continuation') {
    const stop = guardVerdictOf(attachment.message, 'stop');
    if (stop === undefined) return [];
    return [attachment.hookEvent === 'PreToolUse' ? { ...stop, denied: true } : stop];
  }
  return [];
}

/** Where Gemini CLI (0.61.0) puts a hook's context in the result the model gets: after the tool's own (untrusted) output. */
const GEMINI_CONTEXT = /<\/untrusted_context>\s*<hook_context>([\s\S]*)<\/hook_context>\s*$/;
const GEMINI_STOPPED = 'Agent execution stopped by hook: ';
/** How Gemini CLI (0.61.0) words a `BeforeTool` denial in the call's result: `Tool execution blocked: <reason>`. */
const GEMINI_BLOCKED = 'Tool execution blocked: ';

/**
 * Gemini CLI (0.61.0) writes a nudge inside the model's copy of the call's result, as
 * `<hook_context>…</hook_context>` after the tool's `</untrusted_context>`; a stop replaces the
 * result with the error `loopguard: Stopped (…)`, prefixed `Agent execution stopped by hook: ` when
 * it came before the call (a denied call, which never ran); a refusal with `Tool execution blocked: <reason>`.
 */
export function geminiGuardVerdicts(toolCall: Record<string, unknown>): GuardVerdict[] {
  const results = Array.isArray(toolCall.result) ? toolCall.result : [];
  return results.flatMap((part) => {
    const response = recordOf(recordOf(recordOf(part)?.functionResponse)?.response);
    if (typeof response?.error === 'string') {
      if (response.error.startsWith(GEMINI_BLOCKED))
        return refusalOf(response.error.slice(GEMINI_BLOCKED.length));
      // Gemini CLI prefixes the reason of a stop before the call (BeforeTool's deny): that call never ran
      const before = response.error.startsWith(GEMINI_STOPPED);
      const error = before ? response.error.slice(GEMINI_STOPPED.length) : response.error;
      const stop = error.startsWith('loopguard: ') ? guardVerdictOf(error, 'stop') : undefined;
      if (stop === undefined) return [];
      return [before ? { ...stop, denied: true } : stop];
    }
    const context = typeof response?.output === 'string' ? GEMINI_CONTEXT.exec(response.output) : null;
    return guardVerdictOf(context?.[1], 'nudge') ?? [];
  });
}

const CODEX_DENIED = 'Command blocked by PreToolUse hook: ';

/**
 * Codex (0.169.0) writes a hook's context (a nudge, or a stop found after its call ran) as a
 * `developer` message whose metadata names it `hooks.additional_context`, and a `PreToolUse` denial as the call's output `Command blocked by
 * PreToolUse hook: <reason>. Command: …` (a real output starts with its chunk header).
 */
export function codexGuardVerdicts(payload: Record<string, unknown>): GuardVerdict[] {
  if (payload.type === 'function_call_output' && typeof payload.output === 'string') {
    if (!payload.output.startsWith(CODEX_DENIED)) return [];
    const reason = payload.output.slice(CODEX_DENIED.length);
    const stop = guardVerdictOf(reason, 'stop');
    return stop === undefined ? refusalOf(reason) : [{ ...stop, denied: true }];
  }
  if (payload.type !== 'message' || payload.role !== 'developer' || !Array.isArray(payload.content))
    return [];
  const kinds = recordOf(payload.internal_chat_message_metadata_passthrough)?.content_item_kinds;
  if (!Array.isArray(kinds) || !kinds.includes('hooks.additional_context')) return [];
  // a nudge, or a stop found after its call ran (Codex cannot end the turn: the stop is context too)
  return payload.content.flatMap((part) => {
    const text = recordOf(part)?.text;
    return guardVerdictOf(text, 'nudge') ?? guardVerdictOf(text, 'stop') ?? [];
  });
}
