import { dirname, join } from 'node:path';
import { AGENT_ID } from './subagentRun.js';
import { type SubagentTranscript, subagentTranscripts } from './subagentTranscripts.js';

/**
 * The chats of a Gemini CLI session's subagents. Gemini CLI (0.61.0) sends a subagent's hook events
 * with the session's `session_id` and `transcript_path` (the main chat), and writes the subagent's
 * replies to a chat of its own filed under the session's, `<chats>/<session id>/<agent id>.jsonl`
 * (header `"kind":"subagent"`), never to the main chat. None when the session's id cannot name a
 * folder (letters, digits, `_` and `-`: a Gemini CLI session id is a UUID).
 * @example geminiSubagentChats('/h/.gemini/tmp/p/chats/session-1.jsonl', 's1'); // [{ agentId: 'a1', path: '/h/.gemini/tmp/p/chats/s1/a1.jsonl', size: 120 }]
 */
export function geminiSubagentChats(transcriptPath: string, sessionId: string): SubagentTranscript[] {
  if (!AGENT_ID.test(sessionId)) return [];
  return subagentTranscripts(
    join(dirname(transcriptPath), sessionId),
    (name) => /^(.+)\.jsonl$/.exec(name)?.[1],
  );
}
