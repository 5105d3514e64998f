import { StepLoopDetector } from '@loopguard/core/steps';
import type { HookSessionRecord, HookSessionUpdate } from '@loopguard/sqlite';
import type { GuardContext } from './guardContext.js';
import type { HookEvent } from './hookEvent.js';
import { SHA256_SEAL_CHECKSUM } from './sealChecksum.js';
import type { Memory } from './sessionMemory.js';

/**
 * The row of a session whose first call was denied before it ran (refused, or stopped on spend): no
 * tool call ran, but every door lists the session and what loopguard did to it.
 * @param snapshot - the detector's sealed snapshot. @default a fresh detector's
 */
export function newSession(
  event: HookEvent,
  context: Pick<GuardContext, 'detector'>,
  memory: Memory = { results: [], seen: [] },
  snapshot?: string,
): NonNullable<HookSessionUpdate<unknown>['next']> {
  return {
    snapshot: snapshot ?? new StepLoopDetector(context.detector).sealedSnapshot(SHA256_SEAL_CHECKSUM),
    lastResults: JSON.stringify(memory satisfies Memory),
    steps: 0,
    toolCalls: 0,
    parentSessionId: event.parentSessionId ?? null,
    agentType: event.agentType ?? null,
    enabled: true,
    nudges: 0,
    stops: 0,
  };
}

/** What a judged event leaves of a session: see {@link judgedSession}. */
export interface JudgedState {
  /** The detector's snapshot, as stored. */
  snapshot: string;
  /** The session's memory after the event. */
  memory: Memory;
  /** The steps the detector has seen. */
  steps: number;
  /** The tool calls the event adds (see {@link resultCount}). */
  toolCalls: number;
  /** The session's nudges, the event's included. */
  nudges: number;
  /** The session's stops, the event's included. */
  stops: number;
}

/**
 * The row of a session after an event its detector judged (Claude Code's, Gemini CLI's and Codex's
 * alike): a subagent's run (its own row) is listed under its session, named by the first event.
 */
export function judgedSession(
  event: HookEvent,
  session: HookSessionRecord | null,
  state: JudgedState,
): NonNullable<HookSessionUpdate<unknown>['next']> {
  return {
    snapshot: state.snapshot,
    lastResults: JSON.stringify(state.memory satisfies Memory),
    steps: state.steps,
    toolCalls: (session?.toolCalls ?? 0) + state.toolCalls,
    parentSessionId: session?.parentSessionId ?? event.parentSessionId ?? null,
    agentType: session?.agentType ?? event.agentType ?? null,
    enabled: true,
    nudges: state.nudges,
    stops: state.stops,
  };
}

/**
 * What the event adds to the session's `toolCalls`: 1 for a call's result, unless that call was
 * counted when it started ({@link Memory.startedCalls}, then one fewer is left started); 0 else.
 * A result of a call other than the started one ({@link Memory.startedCall}) counts, the started
 * call kept: its own result may come later (parallel calls) or never (qa60).
 */
export function resultCount(
  event: HookEvent,
  started: { startedCalls?: number | undefined; startedCall?: string | undefined },
): { toolCalls: 0 | 1 } & Pick<Memory, 'startedCalls' | 'startedCall'> {
  const { startedCalls, startedCall } = started;
  const kept = {
    ...(startedCalls === undefined ? {} : { startedCalls }),
    ...(startedCall === undefined ? {} : { startedCall }),
  };
  if (event.kind !== 'after_tool') return { toolCalls: 0, ...kept };
  if (startedCalls === undefined) return { toolCalls: 1 };
  if (startedCall !== undefined && event.callId !== undefined && event.callId !== startedCall)
    return { toolCalls: 1, ...kept };
  return { toolCalls: 0, ...(startedCalls > 1 ? { startedCalls: startedCalls - 1 } : {}) };
}

/**
 * The row of a session made at its first call, before that call's result: the call counted as
 * started ({@link Memory.startedCalls}), so that every door lists the session with it, running, and
 * ended by the same rule as any other once its agent is gone (killed during that call, sessions55).
 */
export function startedSession(
  event: HookEvent,
  context: Pick<GuardContext, 'detector' | 'agent'>,
): NonNullable<HookSessionUpdate<unknown>['next']> {
  // Claude Code's and Codex's `tool_use_id` names the call; Gemini CLI's id names one event only
  const startedCall =
    event.callId === undefined || context.agent === 'gemini' ? {} : { startedCall: event.callId };
  return {
    ...newSession(event, context, { results: [], seen: [], startedCalls: 1, ...startedCall }),
    toolCalls: 1,
  };
}
