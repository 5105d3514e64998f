import { boundedText } from '@loopguard/core/internal';
import { codexToolName } from '@loopguard/core/steps';
import {
  callIdOf,
  contextFor,
  eventObject,
  type HookDialect,
  type HookEvent,
  HookInputError,
  type HookReply,
  stringField,
  transcriptOf,
} from './hookEvent.js';
import { subagentRunOf } from './subagentRun.js';

/** Codex's events the hook is registered for. */
export const CODEX_HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'] as const;

/**
 * Codex's tool call: its command tool (`tool_name: "Bash"`, `tool_input: { command }`) is `shell`,
 * as Codex's stream and rollout name it (`codexToolName`, core), so that one session gives one
 * verdict whichever door reads it; any other tool keeps its name.
 */
function codexCallOf(event: Record<string, unknown>): { tool: string; input: unknown } {
  const name = stringField(event, 'tool_name');
  return { tool: codexToolName(name === 'Bash' ? 'shell' : name), input: event.tool_input ?? null };
}

/**
 * Codex's hook dialect (verified against 0.169.0 with a scripted Responses API, `codex exec`).
 * - the project is the folder Codex runs its hooks in, where the session started (`-C`, else
 *   Codex's own); the event's `cwd` is the folder of the call (`exec_command`'s `workdir`);
 * - a nudge goes in `hookSpecificOutput.additionalContext`: Codex hands it to the model in the
 *   next request, as a developer message before the call's output;
 * - a stop before the call: `PreToolUse` with `permissionDecision: "deny"` and the reason, which
 *   the model reads as the call's output ("Command blocked by PreToolUse hook: …"). Codex rejects a
 *   `PreToolUse` reply that carries `continue: false` or `stopReason` as unsupported and runs the
 *   call, and no reply ends its turn: a stop in Codex is every further repeat denied before it runs;
 * - a stop found after the call ran: its message as context (the repeats that follow are denied).
 * - a notice to the user (a refused `.loopguard`): `systemMessage` alone, which 0.169.0 takes
 *   (`exec` prints no hook message) and never hands to the model;
 *
 * `tool_response` is the command's output only: Codex names no exit code in the event, so the
 * event's `error` is always false here; whether a command failed is read from the rollout the event
 * names, by Codex's one translation (`guardCodexSession`; docs/hooks.md, "Codex").
 */
export const codexHook: HookDialect = {
  agent: 'codex',
  parse(payload, _env, cwd) {
    const event = eventObject(payload);
    const eventName = stringField(event, 'hook_event_name');
    const base = {
      // a subagent's run is its own (`agent_id`), its `transcript_path` its own rollout
      ...subagentRunOf(event),
      // the folder Codex runs its hooks in, the session's: the event's `cwd` is the folder the
      // call runs in (its `workdir`), which the model chooses (docs/decisions.md, codexcwd)
      projectDir: cwd,
      eventName,
      ...callIdOf(event, 'tool_use_id'),
      // its rollout (`$CODEX_HOME/sessions/…/rollout-*.jsonl`), where the spend guard reads usage
      ...transcriptOf(event),
      ...modelOf(event),
    };
    switch (eventName) {
      case 'PreToolUse':
        return { ...base, kind: 'before_tool', ...codexCallOf(event) };
      case 'PostToolUse':
        return {
          ...base,
          kind: 'after_tool',
          ...codexCallOf(event),
          output: boundedText(event.tool_response),
          error: false,
        };
      case 'Stop':
        return { ...base, kind: 'agent_stop', text: boundedText(event.last_assistant_message) };
      case 'SessionEnd':
        return { ...base, kind: 'session_end' };
      default:
        throw new HookInputError(`unknown Codex event ${JSON.stringify(eventName)}`);
    }
  },
  notice(_event: HookEvent, message: string) {
    return JSON.stringify({ systemMessage: message });
  },
  render(event: HookEvent, reply: HookReply) {
    if (reply.kind === 'silent' || event.kind === 'agent_stop' || event.kind === 'session_end') return '';
    if (reply.kind === 'refuse' || (reply.kind === 'stop' && event.kind === 'before_tool')) {
      return JSON.stringify({
        hookSpecificOutput: {
          hookEventName: event.eventName,
          permissionDecision: 'deny',
          // Codex shows it as `Command blocked by PreToolUse hook: <reason>. Command: <command>`
          permissionDecisionReason: reply.message.replace(/\.$/, ''),
        },
      });
    }
    return JSON.stringify({ hookSpecificOutput: contextFor(event.eventName, reply.message) });
  },
};

/** The event's `model` (Codex names it in every event): the price of the usage its rollout records. */
function modelOf(event: Record<string, unknown>): { model?: string } {
  const model = event.model;
  return typeof model === 'string' && model !== '' && model.length <= 200 ? { model } : {};
}
