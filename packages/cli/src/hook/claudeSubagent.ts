import { basename, dirname, join } from 'node:path';
import { type SubagentTranscript, subagentTranscripts } from './subagentTranscripts.js';

/**
 * What Claude Code's subagents look like to a hook (checked with 2.1.330, offline): the tool calls
 * of a subagent (the `Agent` tool's, in the background or not) reach the same hooks as the main
 * thread's, with the same `session_id` and `transcript_path` (the main thread's), plus `agent_id`
 * (`a` and 16 hex digits) and `agent_type` (`general-purpose`, `Explore`, a custom agent's name).
 * The subagent's replies are written to a transcript of its own,
 * `<transcript without .jsonl>/subagents/agent-<agent_id>.jsonl`, never to the main one.
 */

/** The folder of a session's subagent transcripts, or `undefined` when the transcript is not a `.jsonl` file. */
function subagentFolder(transcriptPath: string): string | undefined {
  const name = basename(transcriptPath);
  if (!name.endsWith('.jsonl') || name === '.jsonl') return undefined;
  return join(dirname(transcriptPath), name.slice(0, -'.jsonl'.length), 'subagents');
}

/**
 * The transcript of the subagent `agentId` of the session whose transcript is `transcriptPath`.
 * @example claudeSubagentTranscript('/h/p/s.jsonl', 'a1'); // '/h/p/s/subagents/agent-a1.jsonl'
 */
export function claudeSubagentTranscript(transcriptPath: string, agentId: string): string | undefined {
  const folder = subagentFolder(transcriptPath);
  return folder === undefined ? undefined : join(folder, `agent-${agentId}.jsonl`);
}

/**
 * The transcripts of the session's subagents (nested ones included: Claude Code writes them in the
 * same folder), at most {@link MAX_SUBAGENT_TRANSCRIPTS}, the most recently written first; none when
 * the session has no subagent folder. Files that are not `agent-<id>.jsonl` regular files are left out.
 */
export function claudeSubagentTranscripts(transcriptPath: string): SubagentTranscript[] {
  const folder = subagentFolder(transcriptPath);
  if (folder === undefined) return [];
  return subagentTranscripts(folder, (name) => /^agent-(.+)\.jsonl$/.exec(name)?.[1]);
}
