import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AGENT_ID } from './subagentRun.js';
import type { SubagentTranscript } from './subagentTranscripts.js';

/**
 * The rollouts of a Codex session's subagents `agentIds` (each known from its own hook events),
 * found beside the session's rollout: Codex 0.169.0 writes a subagent's thread to
 * `<sessions>/YYYY/MM/DD/rollout-<time>-<agent_id>.jsonl`, the day folder of the session's own
 * rollout when it starts the same day. The main thread's events never name a subagent's rollout, so
 * the spend guard finds it here to count the replies the subagent wrote after its last tool call
 * (no event of its own comes after that call). A subagent started another day is not found: its
 * own events count it up to its last call. Only regular files are listed.
 * @example codexSubagentRollouts('/h/sessions/2026/11/30/rollout-…-s1.jsonl', ['a1']) // [{ agentId: 'a1', path: '/h/sessions/2026/11/30/rollout-…-a1.jsonl', size: 5120 }]
 */
export function codexSubagentRollouts(
  rolloutPath: string,
  agentIds: readonly string[],
): SubagentTranscript[] {
  const wanted = new Set(agentIds.filter((id) => AGENT_ID.test(id)));
  if (wanted.size === 0) return [];
  const folder = dirname(rolloutPath);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const found: SubagentTranscript[] = [];
  for (const name of names) {
    if (!name.startsWith('rollout-') || !name.endsWith('.jsonl')) continue;
    const agentId = [...wanted].find((id) => name.endsWith(`-${id}.jsonl`));
    if (agentId === undefined) continue;
    const path = join(folder, name);
    try {
      const stat = statSync(path);
      if (stat.isFile()) found.push({ agentId, path, size: stat.size });
    } catch {
      // gone between the listing and the look: nothing to count
    }
  }
  return found;
}
