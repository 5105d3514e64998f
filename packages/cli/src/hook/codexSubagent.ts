import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AGENT_ID } from './subagentRun.js';
import type { SubagentTranscript } from './subagentTranscripts.js';

/**
 * The rollouts of a Codex session's subagents `agentIds` (each known from its own hook events, or
 * from the main thread's `spawn_agent` result), found in the day folders of the session's rollout
 * ({@link dayFolders}): Codex 0.169.0 writes a subagent's thread to
 * `<sessions>/YYYY/MM/DD/rollout-<time>-<agent_id>.jsonl`, the day folder of the day it starts. The
 * main thread's events never name a subagent's rollout, so the spend guard finds it here to count
 * the replies the subagent wrote after its last tool call (no event of its own comes after that
 * call), or all of them where it made none. Only regular files are listed.
 * @param now - epoch ms: the days up to it are looked in.
 * @example codexSubagentRollouts('/h/sessions/2026/11/30/rollout-…-s1.jsonl', ['a1'], Date.now()) // [{ agentId: 'a1', path: '/h/sessions/2026/11/30/rollout-…-a1.jsonl', size: 5120 }]
 */
export function codexSubagentRollouts(
  rolloutPath: string,
  agentIds: readonly string[],
  now: number,
): SubagentTranscript[] {
  const wanted = new Set(agentIds.filter((id) => AGENT_ID.test(id)));
  if (wanted.size === 0) return [];
  const found: SubagentTranscript[] = [];
  for (const folder of dayFolders(rolloutPath, now)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
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
  }
  return found;
}

const DAY_MS = 86_400_000;

/**
 * The folders a session's subagents' rollouts can be in: its own rollout's day folder, and those of
 * the days around `now` (the day before to the day after: Codex names them in local time) that come
 * after it (a subagent started after midnight, sess66); the session's folder alone where it is not
 * `<sessions>/YYYY/MM/DD`.
 */
function dayFolders(rolloutPath: string, now: number): string[] {
  const own = dirname(rolloutPath);
  const day = /\/(\d{4})\/(\d{2})\/(\d{2})$/.exec(own);
  if (day === null) return [own];
  const sessions = dirname(dirname(dirname(own)));
  const start = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
  const folders = [own];
  for (const at of [now - DAY_MS, now, now + DAY_MS]) {
    if (at - start < DAY_MS) continue;
    const [y, m, d] = new Date(at).toISOString().slice(0, 10).split('-') as [string, string, string];
    folders.push(join(sessions, y, m, d));
  }
  return folders;
}

/**
 * The id of the subagent a Codex `spawn_agent` call started, from its result (`{"agent_id": …}`, as
 * Codex 0.169.0 returns it to the model); `undefined` for another result, or an id that names no file.
 */
export function spawnedAgentId(output: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return undefined;
  }
  const id = (parsed as { agent_id?: unknown } | null)?.agent_id;
  return typeof id === 'string' && AGENT_ID.test(id) ? id : undefined;
}
