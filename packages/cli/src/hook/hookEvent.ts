import { InvalidInputError } from '@loopguard/core';
import type { HookAgent as StoredHookAgent } from '@loopguard/sqlite';

/** The agent CLIs whose hooks this build installs (a subset of what `hook_sessions` stores). */
export type HookAgent = Extract<StoredHookAgent, 'claude' | 'gemini' | 'codex'>;

/** The name each agent CLI goes by in what the user reads. */
export const CLI_NAMES: Readonly<Record<HookAgent, string>> = {
  claude: 'Claude Code',
  gemini: 'Gemini CLI',
  codex: 'Codex',
};

/** What every hook event names: the session and the project it runs in. */
interface HookEventBase {
  /**
   * The run the event belongs to, whose steps one detector judges: the CLI's `session_id`, or a
   * subagent's `agent_id` (Claude Code, Codex; then {@link parentSessionId} is the session's).
   */
  sessionId: string;
  /**
   * The session a subagent's run belongs to (the `session_id` of a Claude Code or Codex event with
   * an `agent_id`): its calls are judged apart from the main thread's, its replies count against this
   * session's budget. Absent: the run is the session's main thread.
   */
  parentSessionId?: string;
  /** The subagent's type (`agent_type`), when the run is a subagent's. */
  agentType?: string;
  /** The project directory: `.loopguard/state.db` and `.loopguard/hook.log` live under it. */
  projectDir: string;
  /** The CLI's name for the event (`PreToolUse`, `AfterTool`, ...), echoed in replies. */
  eventName: string;
  /**
   * What identifies this one event of this one call, the same for every hook the CLI runs on it
   * (Claude Code's `tool_use_id`; Gemini CLI 0.61, which names no call, stamps each event once:
   * its `timestamp`). A second event with the same `eventName` and `callId` is a hook installed
   * twice, and is not counted again. Absent: the event is never taken for a repeat.
   */
  callId?: string;
  /** The session's transcript (`transcript_path`), where the spend guard reads the replies' usage; absent when the event names none. */
  transcriptPath?: string;
  /**
   * Text the transcript holds once the reply this event follows is written there (Claude Code:
   * the call's `tool_use_id` as JSON, or the start of the turn's last text): the spend guard waits
   * for it, since the CLI may call a hook before it writes that reply ({@link waitForReply}).
   * Absent: nothing to wait for.
   */
  replyMarker?: string;
  /**
   * The reply {@link replyMarker} names is a turn's last (Claude Code's `Stop`): the wait looks only
   * at what was not read yet, since the same text before it (the same final answer in an earlier
   * turn) is another reply, and does not wait when the transcript ends with that reply, read at
   * another event of the turn (`endsWithReadReply`). @default false
   */
  replyUnread?: boolean;
  /** The model the event names (Codex): the price of the usage its transcript records without one. */
  model?: string;
}

/**
 * One hook event of a CLI, in the CLI's own terms turned into loopguard's:
 * - `before_tool`: a tool call about to run (Claude Code and Codex `PreToolUse`, Gemini CLI `BeforeTool`);
 * - `after_tool`: the call with its result (`PostToolUse`, `PostToolUseFailure`, `AfterTool`);
 * - `agent_stop`: the agent finished its turn, with its last text when the event carries it
 *   (`Stop`, `AfterAgent`);
 * - `session_end`: the agent ended the session (`SessionEnd`, all three CLIs, headless runs too).
 */
export type HookEvent =
  | (HookEventBase & {
      /** A tool call about to run. */
      kind: 'before_tool';
      /** The tool's name, as the CLI names it (`Bash`, `run_shell_command`, `shell`). */
      tool: string;
      /** The call's input, as the model wrote it. */
      input: unknown;
    })
  | (HookEventBase & {
      /** A tool call that ran, with its result. */
      kind: 'after_tool';
      /** The tool's name, as the CLI names it. */
      tool: string;
      /** The call's input, as the model wrote it. */
      input: unknown;
      /** The result the model receives, as text. */
      output: string;
      /** Whether the call failed (`PostToolUseFailure`, an error result). */
      error: boolean;
      /** Whether the CLI refused the call before it ran (a call of a `PostToolBatch`). @default false */
      refused?: boolean;
    })
  | (HookEventBase & {
      /** A model reply's tool calls, each with its result, after all of them (Claude Code's `PostToolBatch`). */
      kind: 'after_batch';
      /** The reply's calls, in its order. */
      calls: BatchCall[];
    })
  | (HookEventBase & {
      /** The agent finished its turn. */
      kind: 'agent_stop';
      /** Its last text; `''` when the event carries none. */
      text: string;
    })
  | (HookEventBase & {
      /** The agent ended the session. */
      kind: 'session_end';
    });

/** One call of an `after_batch` event, with its result as the model received it. */
export interface BatchCall {
  /** The call's id (`tool_use_id`); absent when the event names none (such a call is not fed). */
  callId?: string;
  /** The tool's name, as the CLI names it. */
  tool: string;
  /** The call's input, as the model wrote it. */
  input: unknown;
  /** The result the model received, as text. */
  output: string;
  /** Whether the model received it as an error. */
  error: boolean;
  /** Whether the CLI refused the call before it ran (its own error, no call hook ran). */
  refused: boolean;
}

/** A tool call about to run whose input the model wrote as an object. */
export type BeforeToolCall = Extract<HookEvent, { kind: 'before_tool' }> & {
  /** The call's input, an object (its fields as the agent sends them). */
  input: Record<string, unknown>;
};

/**
 * The event when it is a tool call about to run with an object as input; `undefined` for any other
 * event or input (the refusal checks read only such calls).
 */
export function beforeToolCall(event: HookEvent): BeforeToolCall | undefined {
  if (event.kind !== 'before_tool' || typeof event.input !== 'object' || event.input === null)
    return undefined;
  return event as BeforeToolCall;
}

/**
 * What the hook answers:
 * - `silent`: nothing on stdout, exit 0 (go on);
 * - `nudge`: hand `message` to the model after the tool call;
 * - `stop`: end the session; `denied` when the repeated call is refused before it runs;
 * - `refuse`: refuse the call before it runs, `message` the model's reason; the session goes on.
 */
export type HookReply =
  | {
      /** Nothing on stdout, exit 0: go on. */
      kind: 'silent';
    }
  | {
      /** Hand `message` to the model after the tool call. */
      kind: 'nudge';
      /** What the model reads. */
      message: string;
    }
  | {
      /** Refuse the call before it runs; the session goes on. */
      kind: 'refuse';
      /** The model's reason. */
      message: string;
    }
  | {
      /** End the session. */
      kind: 'stop';
      /** What the model reads. */
      message: string;
      /** What the CLI shows the user as the reason it stopped. */
      stopReason: string;
      /** Whether the repeated call is refused before it runs (else the stop follows its result). */
      denied: boolean;
    };

/** One CLI's hook dialect: its events in, its JSON replies out. */
export interface HookDialect {
  /** The CLI. */
  readonly agent: HookAgent;
  /**
   * Turns the CLI's event JSON into a {@link HookEvent}.
   * @param env - the hook process's environment (Claude Code and Gemini CLI name the project directory there).
   * @param cwd - the hook process's working directory (Codex runs its hooks in the session's folder,
   *   and names the folder of the call in the event: docs/hooks.md, "Codex").
   * @throws HookInputError when the event is malformed or not one the hook handles.
   */
  parse(payload: unknown, env: NodeJS.ProcessEnv, cwd: string): HookEvent;
  /** The JSON to print for `reply` to `event`; `''` for silence. */
  render(event: HookEvent, reply: HookReply): string;
  /**
   * The JSON that shows `message` to the user, not the model, and decides nothing (the CLI's
   * `systemMessage`): loopguard telling that it is not guarding the session (`unguardedNotice`).
   */
  notice(event: HookEvent, message: string): string;
}

/**
 * An event the hook cannot handle: malformed JSON, a missing or oversized field, an unknown event
 * name. A typed `InvalidInputError` (code `invalid_input`) whose message names the field.
 */
export class HookInputError extends InvalidInputError {}

/** Longest string field (`session_id`, `hook_event_name`, `cwd`, `tool_name`): a path's limit on Linux. */
export const MAX_FIELD_CHARS = 4096;

/** A UTF-16 half of a pair without its other half: no character, and no UTF-8 text encodes it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A string field of the event, or a {@link HookInputError} naming it: empty, over
 * {@link MAX_FIELD_CHARS}, or holding a lone surrogate. These fields name the session and the
 * project (`session_id` is a key of the database): SQLite would store a lone surrogate as bytes that
 * are not UTF-8, and replacing it would merge two sessions into one, so the event is refused. (A
 * NUL is a character like any other: it is stored as it is, and keeps two ids apart.)
 */
export function stringField(payload: Record<string, unknown>, name: string): string {
  const value = payload[name];
  if (typeof value !== 'string' || value.length === 0) {
    throw new HookInputError(`event field ${name} must be a non-empty string`);
  }
  if (value.length > MAX_FIELD_CHARS) {
    throw new HookInputError(`event field ${name} is longer than ${MAX_FIELD_CHARS} characters`);
  }
  if (LONE_SURROGATE.test(value)) {
    throw new HookInputError(`event field ${name} holds a lone surrogate (no Unicode text)`);
  }
  return value;
}

/**
 * `text` with each lone surrogate replaced by U+FFFD, as UTF-8 can store it (a tool's output, a
 * message quoting it). `String.prototype.toWellFormed` of ES2024.
 */
export function wellFormed(text: string): string {
  return LONE_SURROGATE.test(text) ? text.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd') : text;
}

/** The event as an object, or a {@link HookInputError}. */
export function eventObject(payload: unknown): Record<string, unknown> {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new HookInputError('the event must be a JSON object');
  }
  return payload as Record<string, unknown>;
}

/**
 * The event's `transcript_path` when it is a non-empty string (the spend guard's source), else nothing.
 * @example transcriptOf({ transcript_path: '/home/u/.claude/projects/p/s.jsonl' }); // { transcriptPath: '/home/…/s.jsonl' }
 */
export function transcriptOf(payload: Record<string, unknown>): { transcriptPath?: string } {
  const path = payload.transcript_path;
  return typeof path === 'string' && path !== '' ? { transcriptPath: path } : {};
}

/**
 * The project directory: what the CLI names in its environment (`GEMINI_PROJECT_DIR`,
 * `CLAUDE_PROJECT_DIR`), else the event's `cwd`.
 */
export function projectDirOf(
  payload: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  ...vars: string[]
): string {
  for (const name of vars) {
    const value = env[name];
    if (value !== undefined && value.length > 0) return value;
  }
  return stringField(payload, 'cwd');
}

/**
 * The tool call an event carries: its `tool_name`, and its `tool_input` as given (the detector
 * reads a shell tool's `{ command }` as the command line: see `shellCommandOf` in core).
 * @example toolCallOf({ tool_name: 'Bash', tool_input: { command: 'ls' } }); // { tool: 'Bash', input: { command: 'ls' } }
 */
export function toolCallOf(event: Record<string, unknown>): { tool: string; input: unknown } {
  return { tool: stringField(event, 'tool_name'), input: event.tool_input ?? null };
}

/**
 * The `hookSpecificOutput` that both CLIs hand to the model as context after the event.
 * @example contextFor('PostToolUse', 'loopguard: …'); // { hookEventName: 'PostToolUse', additionalContext: 'loopguard: …' }
 */
export function contextFor(
  eventName: string,
  message: string,
): { hookEventName: string; additionalContext: string } {
  return { hookEventName: eventName, additionalContext: message };
}

/**
 * The event's optional string field `name` as {@link HookEvent.callId}: `{ callId }`, or `{}` when
 * the event has none.
 * @example callIdOf({ tool_use_id: 'toolu_1' }, 'tool_use_id'); // { callId: 'toolu_1' }
 */
export function callIdOf(event: Record<string, unknown>, name: string): { callId?: string } {
  const value = event[name];
  return typeof value === 'string' && value !== '' ? { callId: value } : {};
}
