import type { ContextEntryInput } from '@loopguard/core';
import { SESSION_ENDED_TOPIC, stepLoopEntry } from '@loopguard/core/internal';
import type { StepLoopDetector, StepVerdict } from '@loopguard/core/steps';
import { printable } from '../terminal/terminalText.js';
import type { GuardContext } from './guardContext.js';
import type { HookAgent, HookEvent } from './hookEvent.js';
import { refusedCallText } from './ownStateCall.js';
import { callsMade } from './sessionMemory.js';

/**
 * The `call_refused` entry of a refused call: the sentence the model was told and what the call
 * would have done (its first line: `<tool>: <command> — <sentence>`, what `status --session`
 * prints; its control characters shown as U+FFFD), with the session's metadata, the call's
 * `tool`, `command` (as given) and `toolCall`, its number among the calls ({@link callsMade}).
 */
export function refusalEntry(
  event: HookEvent,
  context: Pick<GuardContext, 'agent'>,
  message: string,
  toolCall: number,
): ContextEntryInput {
  const tool = event.kind === 'before_tool' ? event.tool : '';
  const command = refusedCallText(event);
  return {
    entryType: 'decision',
    topic: 'call_refused',
    // one line a terminal prints as text: the command is the model's, its escapes are not sent on
    content: `${tool}: ${printable(command.replace(/\s+/g, ' '))} — ${message}`,
    relatedTasks: [sessionTaskId(context.agent, event.sessionId)],
    metadata: {
      ...entrySession(context.agent, event),
      tool,
      command,
      toolCall,
      deniedBeforeRun: true,
    },
  };
}

/** The session's task id in context entries: `<agent>:<session_id>`. */
export function sessionTaskId(agent: HookAgent, sessionId: string): string {
  return `${agent}:${sessionId}`;
}

/**
 * The nudge or stop entry of `verdict` on `event`, with the session's metadata.
 * @param deniedBeforeRun - the verdict refused the event's call. @default event.kind === 'before_tool'
 */
export function entryOf(
  verdict: StepVerdict,
  event: HookEvent,
  detector: StepLoopDetector,
  context: GuardContext,
  deniedBeforeRun = event.kind === 'before_tool',
): ContextEntryInput {
  const entry = stepLoopEntry(verdict, {
    taskId: sessionTaskId(context.agent, event.sessionId),
    runId: event.sessionId,
    detectedAt: context.now(),
    thresholds: detector.options,
  });
  return {
    ...entry,
    metadata: {
      ...entry.metadata,
      ...entrySession(context.agent, event),
      ...(deniedBeforeRun ? { deniedBeforeRun: true } : {}),
    },
  };
}

/**
 * What an entry says of a subagent's run besides its `sessionId` (the subagent's `agent_id`): the
 * session it belongs to and its type; nothing for a main thread.
 * @example subagentFields({ parentSessionId: 's', agentType: 'Explore', ... }); // { parentSessionId: 's', agentType: 'Explore' }
 */
function subagentFields(event: Pick<HookEvent, 'parentSessionId' | 'agentType'>): {
  parentSessionId?: string;
  agentType?: string;
} {
  return {
    ...(event.parentSessionId === undefined ? {} : { parentSessionId: event.parentSessionId }),
    ...(event.agentType === undefined ? {} : { agentType: event.agentType }),
  };
}

/**
 * What every entry of a hook session says of where it came from, in one order: the session, its
 * subagent's run ({@link subagentFields}), the agent, the project, the hook event.
 * @example entrySession('claude', event); // { sessionId: 's1', agent: 'claude', projectDir: '/repo', hookEvent: 'PreToolUse' }
 */
export function entrySession(
  agent: HookAgent,
  event: Pick<HookEvent, 'sessionId' | 'parentSessionId' | 'agentType' | 'projectDir' | 'eventName'>,
): {
  sessionId: string;
  parentSessionId?: string;
  agentType?: string;
  agent: HookAgent;
  projectDir: string;
  hookEvent: string;
} {
  return {
    sessionId: event.sessionId,
    ...subagentFields(event),
    agent,
    projectDir: event.projectDir,
    hookEvent: event.eventName,
  };
}

/** The `session_ended` entry of the event's session, related to its task (`<agent>:<session_id>`). */
export function sessionEndedEntry(agent: HookAgent, event: HookEvent): ContextEntryInput {
  return {
    entryType: 'learning',
    topic: SESSION_ENDED_TOPIC,
    content: `${agent} session ${event.sessionId} ended`,
    relatedTasks: [`${agent}:${event.sessionId}`],
    metadata: { sessionId: event.sessionId, agent, projectDir: event.projectDir, hookEvent: event.eventName },
  };
}
