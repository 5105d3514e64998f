import type { StepVerdict } from '@loopguard/core/steps';
import type { HookSessionRecord } from '@loopguard/sqlite';
import type { HookEvent } from './hookEvent.js';

/** Most recent actions whose last result is kept to recognise a repeat before it runs. */
export const MAX_LAST_RESULTS = 16;
/** Most recent events remembered by call (see {@link HookEvent.callId}) to count a hook installed twice once. */
export const MAX_SEEN_CALLS = 64;
/** Longest result kept per action (a longer one is kept cut; its repeat is then only caught after it runs). */
export const MAX_KEPT_OUTPUT = 16_384;

/** The last result of one recent action. */
export interface LastResult {
  /** The action key of the call (`actionKey`). */
  key: string;
  /** Its result, bounded as the detector saw it. */
  output: string;
  /** Whether the call failed. */
  error: boolean;
  /**
   * The detector's `StepLoopDetector.changeCount` after this result; absent in a row written
   * before it was kept (such a result is never foreseen: see `foreseeable` in guardSession.ts).
   */
  changes?: number;
}

/** The session's row with only its memory replaced: what an update that changes nothing else writes. */
export function withMemory(
  session: HookSessionRecord,
  memory: Memory,
): Omit<HookSessionRecord, 'createdAt' | 'updatedAt'> {
  const { createdAt: _created, updatedAt: _updated, ...kept } = session;
  return { ...kept, lastResults: JSON.stringify(memory satisfies Memory) };
}

/** What a session remembers besides its detector (the `last_results` column). */
export interface Memory {
  /** The last result of the most recent actions, newest first. */
  results: LastResult[];
  /**
   * The most recent events answered, as `<eventName>:<callId>`, newest first; a call read from the
   * session's transcript, as {@link READ_IN_TRANSCRIPT} or {@link NOT_IN_TRANSCRIPT} for its name.
   */
  seen: string[];
  /**
   * Codex: how far its rollout is read, its calls already answered, and how many calls it denied
   * (they never ran, but the model made them: see `guardCodexSession`).
   */
  codex?: {
    offset: number;
    denied: string[];
    told: string[];
    deniedCalls?: number;
    /** The calls loopguard refused as the model's own against it (`countRefusal`): never observed, only counted. */
    refused?: string[];
    /**
     * The stop found after its call ran (the model told, the call run: Codex cannot end the turn),
     * and that call's key: each repeat of it while nothing changed is denied with this stop, as a
     * repeat foreseen to stop is (sessions60); a repeat that runs (after a change) drops it.
     */
    stopped?: { key: string; verdict: StepVerdict };
  };
  /**
   * The model's own calls against loopguard that were refused before they ran, numbered among the
   * calls as scan numbers them ({@link callsMade}). Claude Code's and Gemini CLI's detector never
   * observes them and is told of each (`countRefusal`), so that its loop entries and their
   * words number the calls after it; Codex's rollout holds its refusals, which its detector skips
   * and counts there (`codex.refused`): a refused call never ran, so it is neither an attempt nor a
   * change, and the repeat after it is judged as if it had not been made.
   */
  refusedCalls?: number;
  /**
   * Claude Code's and Gemini CLI's calls the spend guard denied before they ran, its session at its
   * budget (a Gemini CLI subagent asks again after the stop): numbered among the calls as
   * `refusedCalls` are, each its own ({@link callsMade}; sess66). Codex's are `codex.deniedCalls`.
   */
  deniedCalls?: number;
  /**
   * Calls counted in `toolCalls` when they started, their results not come yet: a session's first
   * call makes its row (`startedSession`), so that a session killed before that call returned
   * is listed with it; its result, when it comes, is then not counted again (sessions55).
   */
  startedCalls?: number;
  /**
   * The id of the call counted when it started (`startedCalls`; Claude Code's and Codex's
   * `tool_use_id`, absent for Gemini CLI, whose ids name one event): a result of another call counts,
   * since the started call's own may never come (Claude Code skips a `PostToolUse` mcp_tool hook
   * while loopguard's MCP server connects, qa60).
   */
  startedCall?: string;
  /**
   * The message of a stop made after a call that the agent does not end the session on (Claude
   * Code's `PostToolUseFailure`: `endsAfter` in guardSession.ts): the session's next call is denied with it and
   * the session ended then; the end of its turn (`agent_stop`) drops it.
   */
  unendedStop?: string;
}

/**
 * The calls the model made in the session so far, as every entry numbers a call (and `scan`): the
 * calls that ran, the calls loopguard denied before they ran (Codex's, whose stops deny calls and
 * let the turn go on, and every agent's denied at its budget) and the calls it refused (the model's own calls against loopguard).
 */
export function callsMade(session: Pick<HookSessionRecord, 'toolCalls'> | null, memory: Memory): number {
  return (
    (session?.toolCalls ?? 0) +
    (memory.codex?.deniedCalls ?? 0) +
    (memory.deniedCalls ?? 0) +
    (memory.refusedCalls ?? 0)
  );
}

/**
 * The stored memory: `{ results, seen }`, or a list of results (written before `seen` existed);
 * what is neither (a row edited by hand) counts as nothing remembered.
 */
export function parseMemory(text: string | undefined): Memory {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '[]');
  } catch {
    return { results: [], seen: [] };
  }
  const { results, seen, codex, refusedCalls, deniedCalls, startedCalls, startedCall, unendedStop } = (
    Array.isArray(parsed) ? { results: parsed } : (parsed ?? {})
  ) as {
    results?: unknown;
    seen?: unknown;
    codex?: {
      offset?: unknown;
      denied?: unknown;
      told?: unknown;
      deniedCalls?: unknown;
      refused?: unknown;
      stopped?: { key?: unknown; verdict?: StepVerdict };
    };
    refusedCalls?: unknown;
    deniedCalls?: unknown;
    startedCalls?: unknown;
    startedCall?: unknown;
    unendedStop?: unknown;
  };
  const strings = (list: unknown) =>
    (Array.isArray(list) ? list : []).filter((c): c is string => typeof c === 'string');
  return {
    ...(codex !== null && typeof codex === 'object'
      ? {
          codex: {
            offset: typeof codex.offset === 'number' && codex.offset >= 0 ? codex.offset : 0,
            denied: strings(codex.denied),
            told: strings(codex.told),
            ...(Array.isArray(codex.refused) ? { refused: strings(codex.refused) } : {}),
            ...(Number.isSafeInteger(codex.deniedCalls) && (codex.deniedCalls as number) > 0
              ? { deniedCalls: codex.deniedCalls as number }
              : {}),
            ...(typeof codex.stopped?.key === 'string' && codex.stopped.verdict?.action === 'stop'
              ? { stopped: { key: codex.stopped.key, verdict: codex.stopped.verdict } }
              : {}),
          },
        }
      : {}),
    results: (Array.isArray(results) ? results : [])
      .filter(
        (r): r is LastResult =>
          typeof r?.key === 'string' && typeof r?.output === 'string' && typeof r?.error === 'boolean',
      )
      // a count that is not one is dropped: that result is then never foreseen
      .map((r) =>
        r.changes === undefined || Number.isSafeInteger(r.changes)
          ? r
          : { key: r.key, output: r.output, error: r.error },
      ),
    seen: strings(seen),
    ...(Number.isSafeInteger(refusedCalls) && (refusedCalls as number) > 0
      ? { refusedCalls: refusedCalls as number }
      : {}),
    ...(Number.isSafeInteger(deniedCalls) && (deniedCalls as number) > 0
      ? { deniedCalls: deniedCalls as number }
      : {}),
    ...(Number.isSafeInteger(startedCalls) && (startedCalls as number) > 0
      ? { startedCalls: startedCalls as number }
      : {}),
    ...(typeof startedCall === 'string' ? { startedCall } : {}),
    ...(typeof unendedStop === 'string' ? { unendedStop } : {}),
  };
}

/** Puts `item` first in `list`, dropping the oldest beyond `max`. */
export function remember(list: string[], item: string, max: number): void {
  list.unshift(item);
  list.length = Math.min(list.length, max);
}

/**
 * The event name {@link Memory.seen} gives a call whose result was read from the session's
 * transcript (Claude Code skipped its result's hook: `guardSession`, latesrv62).
 */
export const READ_IN_TRANSCRIPT = 'transcript';

/**
 * The event name {@link Memory.seen} gives a call whose result the session's transcript did not
 * hold when it was read for it, once per read (read again up to `MAX_TRANSCRIPT_READS` times in all,
 * then left to its own hook, if any).
 */
export const NOT_IN_TRANSCRIPT = 'untranscribed';

/**
 * How an event stands to the events of its call answered before ({@link Memory.seen}):
 * - `again`: the call's latest event answered is this one (same name, same call id): a second hook
 *   entry's copy of it (a hook installed twice), answered once and counted once; so is a result
 *   whose call's result was read from the transcript ({@link READ_IN_TRANSCRIPT}): its own hook,
 *   come after all;
 * - `reused`: a call about to run under an id whose call already ran or was answered (its
 *   `PostToolUse` is remembered): the id is reused by a new call (a provider that lets the model write
 *   its call ids). The call is remembered, so that its own result is judged, not taken for a copy;
 * - `new`: anything else (the first event of a call, or its result after its `PreToolUse`; an event
 *   without a call id).
 * A hook's copies of one event all come before the call's next event (a CLI runs every hook entry
 * of an event before it goes on), so the latest event of the id tells a copy from a reuse (trust50).
 */
export function deliveryOf(event: HookEvent, seen: readonly string[]): 'again' | 'reused' | 'new' {
  if (event.callId === undefined) return 'new';
  const latest = latestEventOf(seen, event.callId);
  if (latest === event.eventName || (latest === READ_IN_TRANSCRIPT && event.kind === 'after_tool'))
    return 'again';
  return latest !== undefined && event.kind === 'before_tool' ? 'reused' : 'new';
}

/** The name of the latest event remembered (`seen`, newest first) of call `callId`, if any. */
function latestEventOf(seen: readonly string[], callId: string): string | undefined {
  for (const entry of seen) {
    const colon = entry.indexOf(':');
    if (entry.slice(colon + 1) === callId) return entry.slice(0, colon);
  }
  return undefined;
}

/** Puts `result` first, dropping the action's older result and the oldest beyond the bound. */
export function rememberResult(results: LastResult[], result: LastResult): void {
  const index = results.findIndex((r) => r.key === result.key);
  if (index !== -1) results.splice(index, 1);
  results.unshift(result);
  results.length = Math.min(results.length, MAX_LAST_RESULTS);
}
