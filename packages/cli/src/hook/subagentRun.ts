import { HookInputError, stringField } from './hookEvent.js';

/** The characters an `agent_id` may have: it names a file. */
export const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Which run an event belongs to: the main thread's, or a subagent's. */
export interface SubagentRun {
  /** The run's id: the session's `session_id`, or the subagent's `agent_id`. */
  sessionId: string;
  /** The session's `session_id` when the run is a subagent's. */
  parentSessionId?: string;
  /** The subagent's `agent_type`, when it has one. */
  agentType?: string;
}

/**
 * The run an event belongs to: a subagent's own (`agent_id`) when the event names one, so that its
 * calls are judged apart from the main thread's; else the session. Claude Code (2.1.330) and Codex
 * (0.169.0, `multi_agent`) both send a subagent's events with the session's `session_id` and the
 * subagent's `agent_id` and `agent_type`.
 * @throws HookInputError when `session_id` is missing, or `agent_id` is not a string of letters,
 *   digits, `_` and `-` (at most 128).
 * @example subagentRunOf({ session_id: 's', agent_id: 'a1', agent_type: 'Explore' }); // { sessionId: 'a1', parentSessionId: 's', agentType: 'Explore' }
 */
export function subagentRunOf(event: Record<string, unknown>): SubagentRun {
  const sessionId = stringField(event, 'session_id');
  const agentId = event.agent_id;
  if (agentId === undefined || agentId === '') return { sessionId };
  if (typeof agentId !== 'string' || !AGENT_ID.test(agentId))
    throw new HookInputError('event field agent_id must be 1 to 128 letters, digits, _ or -');
  const agentType = event.agent_type;
  return {
    sessionId: agentId,
    parentSessionId: sessionId,
    ...(typeof agentType === 'string' && agentType !== '' ? { agentType: agentType.slice(0, 256) } : {}),
  };
}
