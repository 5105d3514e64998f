import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AGENT_ID } from './subagentRun.js';

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

/** Most subagent transcripts one hook call looks at: the most recently written. */
export const MAX_SUBAGENT_TRANSCRIPTS = 64;

/** A subagent's transcript and its size. */
export interface SubagentTranscript {
  /** The subagent's `agent_id` (from the file's name, `agent-<agent_id>.jsonl`). */
  agentId: string;
  /** The transcript's path. */
  path: string;
  /** Its size when it was listed, bytes. */
  size: number;
}

/**
 * The transcripts of the session's subagents (nested ones included: Claude Code writes them in the
 * same folder), at most {@link MAX_SUBAGENT_TRANSCRIPTS}, the most recently written first; none when
 * the session has no subagent folder. Files that are not `agent-<id>.jsonl` regular files are left out.
 */
export function claudeSubagentTranscripts(transcriptPath: string): SubagentTranscript[] {
  const folder = subagentFolder(transcriptPath);
  if (folder === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const found: Array<SubagentTranscript & { at: number }> = [];
  for (const name of names) {
    const agentId = /^agent-(.+)\.jsonl$/.exec(name)?.[1];
    if (agentId === undefined || !AGENT_ID.test(agentId)) continue;
    const path = join(folder, name);
    try {
      const stat = statSync(path);
      if (stat.isFile()) found.push({ agentId, path, size: stat.size, at: stat.mtimeMs });
    } catch {
      // gone between the listing and the look: nothing to count
    }
  }
  found.sort((a, b) => b.at - a.at);
  return found.slice(0, MAX_SUBAGENT_TRANSCRIPTS).map(({ agentId, path, size }) => ({ agentId, path, size }));
}
