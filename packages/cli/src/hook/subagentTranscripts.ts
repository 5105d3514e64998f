import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_ID } from './subagentRun.js';

/** Most subagent transcripts one hook call looks at: the most recently written. */
export const MAX_SUBAGENT_TRANSCRIPTS = 64;

/** A subagent's transcript and its size. */
export interface SubagentTranscript {
  /** The subagent's id (from the file's name). */
  agentId: string;
  /** The transcript's path. */
  path: string;
  /** Its size when it was listed, bytes. */
  size: number;
}

/**
 * The subagent transcripts in `folder`, at most {@link MAX_SUBAGENT_TRANSCRIPTS}, the most recently
 * written first; none when there is no such folder. A file is one when `idOf` finds a subagent's id
 * in its name that names a file ({@link AGENT_ID}) and it is a regular file.
 * @param idOf - the subagent's id in a file's name, or `undefined` for a file that is not one.
 */
export function subagentTranscripts(
  folder: string,
  idOf: (name: string) => string | undefined,
): SubagentTranscript[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const found: Array<SubagentTranscript & { at: number }> = [];
  for (const name of names) {
    const agentId = idOf(name);
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
