import { type ContextEntryInput, LoopGuardError } from '@loopguard/core';
import { actionKey, actionText, stepLoopEntry } from '@loopguard/core/internal';
import {
  canonicalInput,
  type Step,
  StepLoopDetector,
  type StepLoopDetectorOptions,
  type StepVerdict,
} from '@loopguard/core/steps';
import type { HookSessionRecord, HookSessionUpdate } from '@loopguard/sqlite';
import { printable } from '../terminalText.js';
import type { HookAgent, HookEvent, HookReply } from './hookEvent.js';
import { refusedCallText } from './ownStateCall.js';
import { SHA256_SEAL_CHECKSUM } from './sealChecksum.js';

/** Most recent actions whose last result is kept to recognise a repeat before it runs. */
export const MAX_LAST_RESULTS = 16;
/** Most recent events remembered by call (see {@link HookEvent.callId}) to count a hook installed twice once. */
export const MAX_SEEN_CALLS = 64;
/** Longest result kept per action (a longer one is kept cut; its repeat is then only caught after it runs). */
export const MAX_KEPT_OUTPUT = 16_384;

/** The last result of one recent action. */
export interface LastResult {
  key: string;
  output: string;
  error: boolean;
  /**
   * The detector's {@link StepLoopDetector.changeCount} after this result; absent in a row written
   * before it was kept (such a result is never foreseen: see {@link foreseeable}).
   */
  changes?: number;
}

/**
 * Whether a repeat of the call whose last result is `last` can be judged before it runs, taken to
 * give that result again: only while nothing was changed since (`detector` has made no change
 * since `last`). After an edit the result may be the fix working; denying the call would stop the
 * session on a result it never gave.
 */
export function foreseeable(last: LastResult, detector: StepLoopDetector): boolean {
  return last.changes === detector.changeCount;
}

/** What {@link guardSession} needs besides the event and the stored session. */
export interface GuardContext {
  agent: HookAgent;
  /** Options of the session's detector (from the project's configuration). */
  detector: StepLoopDetectorOptions;
  /** Writes a nudge or stop entry (same transaction as the session). */
  record(entry: ContextEntryInput): void;
  /** Epoch ms, for `detectedAt`. */
  now(): number;
}

/**
 * One hook call: restores the session's detector, feeds it the event's steps, records nudges and
 * stops, and returns the reply with the session's new state (`next` undefined: nothing changes).
 *
 * - `before_tool`: when the call repeats an action whose last result would make the loop's stop,
 *   and nothing was changed since that result (see {@link foreseeable}), the call is denied before
 *   it runs and the session ends (the stop is recorded); so is any call after a stop the agent did
 *   not carry out ({@link Memory.unendedStop}); anything else is silent and writes nothing.
 * - `after_tool`: the action and its result are observed together (parallel calls become turns in
 *   the order they finish); a nudge is handed to the model, a stop ends the session (where the
 *   agent does not end it there, at its next call: {@link endsAfter}).
 * - `agent_stop`: the agent's text is observed as a message; nudges and stops are recorded only
 *   (the turn is over: nobody would hear them, and blocking would force the agent on).
 */
export function guardSession(
  event: HookEvent,
  session: HookSessionRecord | null,
  context: GuardContext,
): HookSessionUpdate<HookReply> {
  if (session !== null && !session.enabled) return { result: { kind: 'silent' } };
  const {
    results: lastResults,
    seen,
    refusedCalls,
    startedCalls,
    unendedStop,
  } = parseMemory(session?.lastResults);
  const call = event.callId === undefined ? undefined : `${event.eventName}:${event.callId}`;
  const delivered = deliveryOf(event, seen);
  // The same event through a second hook entry (installed twice): answered once, counted once.
  if (delivered === 'again') return { result: { kind: 'silent' } };
  const last = event.kind === 'before_tool' ? rememberedResult(event, lastResults) : undefined;
  // Most calls are not repeats: they are answered without restoring the detector (nor writing:
  // a second hook entry's copy of such a call is silent too). A call under an id already answered
  // is remembered, so that its result is not taken for the earlier call's second copy.
  if (
    event.kind === 'before_tool' &&
    last === undefined &&
    unendedStop === undefined &&
    delivered !== 'reused'
  )
    return { result: { kind: 'silent' } };
  if (call !== undefined) remember(seen, call, MAX_SEEN_CALLS);
  if (event.kind === 'before_tool' && session !== null && unendedStop !== undefined) {
    const memory: Memory = {
      results: lastResults,
      seen,
      ...(refusedCalls === undefined ? {} : { refusedCalls }),
      ...(startedCalls === undefined ? {} : { startedCalls }),
    };
    return { result: stopReply(unendedStop, event), next: withMemory(session, memory) };
  }
  const detector = restoreDetector(session, context.detector);
  const counts = { nudges: session?.nudges ?? 0, stops: session?.stops ?? 0 };
  const observe = (steps: Step[]): StepVerdict | undefined =>
    steps.map((step) => detector.observe(step)).find((verdict) => verdict.action !== 'continue');

  let verdict: StepVerdict | undefined;
  // a stop the agent did not carry out ends the session at its next call; its turn's end, anyway
  let stopToCarry = event.kind === 'after_tool' ? unendedStop : undefined;
  switch (event.kind) {
    case 'before_tool': {
      // a call under a reused id writes its memory however it is answered (see deliveryOf)
      const silent: HookSessionUpdate<HookReply> =
        session === null || delivered !== 'reused'
          ? { result: { kind: 'silent' } }
          : {
              result: { kind: 'silent' },
              next: withMemory(session, {
                results: lastResults,
                seen,
                ...(refusedCalls === undefined ? {} : { refusedCalls }),
              }),
            };
      if (last === undefined || !foreseeable(last, detector)) return silent;
      verdict = detector.foresee(event.tool, event.input, last.output, last.error);
      if (verdict?.action !== 'stop') return silent;
      break;
    }
    case 'after_tool': {
      verdict = observe(turnSteps(event.tool, event.input, event.output, event.error));
      rememberResult(lastResults, {
        key: keyOf(event.tool, event.input),
        output: event.output.slice(0, MAX_KEPT_OUTPUT),
        error: event.error,
        changes: detector.changeCount,
      });
      break;
    }
    case 'agent_stop':
      if (event.text.trim() !== '') verdict = observe([{ type: 'message', text: event.text }]);
      break;
  }

  let reply: HookReply = { kind: 'silent' };
  if (verdict !== undefined && verdict.action !== 'continue') {
    counts[verdict.action === 'stop' ? 'stops' : 'nudges']++;
    // the detector numbers the refused calls too (countRefusal): scan counts them
    context.record(entryOf(verdict, event, detector, context));
    const message = verdict.message ?? '';
    if (verdict.action === 'nudge') reply = { kind: 'nudge', message };
    else {
      reply = stopReply(message, event);
      if (event.kind === 'after_tool' && !endsAfter(context.agent, event)) stopToCarry = message;
    }
  }
  const counted = resultCount(event, startedCalls);
  return {
    result: event.kind === 'agent_stop' ? { kind: 'silent' } : reply,
    next: {
      snapshot: detector.sealedSnapshot(SHA256_SEAL_CHECKSUM),
      lastResults: JSON.stringify({
        results: lastResults,
        seen,
        ...(refusedCalls === undefined ? {} : { refusedCalls }),
        ...(counted.startedCalls === undefined ? {} : { startedCalls: counted.startedCalls }),
        ...(stopToCarry === undefined ? {} : { unendedStop: stopToCarry }),
      } satisfies Memory),
      steps: detector.stepCount,
      toolCalls: (session?.toolCalls ?? 0) + counted.toolCalls,
      // a subagent's run (its own row) is listed under its session; the first event names them
      parentSessionId: session?.parentSessionId ?? event.parentSessionId ?? null,
      agentType: session?.agentType ?? event.agentType ?? null,
      enabled: true,
      ...counts,
    },
  };
}

/**
 * The session's detector. Its own sealed snapshot is restored as written; anything else is validated
 * (`restoreSealed`). A snapshot of another version starts afresh (`restore` discards it); so does a
 * snapshot that cannot be read, rather than failing every later call of the session.
 */
export function restoreDetector(
  session: HookSessionRecord | null,
  options: StepLoopDetectorOptions,
): StepLoopDetector {
  if (session === null) return new StepLoopDetector(options);
  try {
    return StepLoopDetector.restoreSealed(session.snapshot, options, SHA256_SEAL_CHECKSUM);
  } catch (error) {
    if (error instanceof SyntaxError || (error instanceof LoopGuardError && error.code === 'invalid_input')) {
      return new StepLoopDetector(options);
    }
    throw error;
  }
}

/**
 * The remembered last result of the action a `before_tool` event is about to run, if any: only such
 * a call can be judged before it runs (its repeat of that result), and any other is answered silent
 * without the detector and without writing (see {@link guardSession}; `guardProject` answers it from
 * the session's memory alone, without the session's transaction).
 */
export function rememberedResult(
  event: Extract<HookEvent, { kind: 'before_tool' }>,
  results: readonly LastResult[],
): LastResult | undefined {
  const key = keyOf(event.tool, event.input);
  return results.find((r) => r.key === key);
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
  /** The most recent events answered, as `<eventName>:<callId>`, newest first. */
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
    /** The calls loopguard refused as the model's own against it ({@link countRefusal}): never observed, only counted. */
    refused?: string[];
  };
  /**
   * The model's own calls against loopguard that were refused before they ran, numbered among the
   * calls as scan numbers them ({@link callsMade}). Claude Code's and Gemini CLI's detector never
   * observes them and is told of each ({@link countRefusal}), so that its loop entries and their
   * words number the calls after it; Codex's rollout holds its refusals, which its detector skips
   * and counts there (`codex.refused`): a refused call never ran, so it is neither an attempt nor a
   * change, and the repeat after it is judged as if it had not been made.
   */
  refusedCalls?: number;
  /**
   * Calls counted in `toolCalls` when they started, their results not come yet: a session's first
   * call makes its row ({@link startedSession}), so that a session killed before that call returned
   * is listed with it; its result, when it comes, is then not counted again (sessions55).
   */
  startedCalls?: number;
  /**
   * The message of a stop made after a call that the agent does not end the session on (Claude
   * Code's `PostToolUseFailure`: {@link endsAfter}): the session's next call is denied with it and
   * the session ended then; the end of its turn (`agent_stop`) drops it.
   */
  unendedStop?: string;
}

/**
 * Whether the agent ends the session on a stop answered to this after-call event. Claude Code
 * (2.1.330) does on `PostToolUse` but not on `PostToolUseFailure`, where it hands the model the
 * message and goes on (seen with the real CLI: docs/hooks.md).
 */
function endsAfter(agent: HookAgent, event: HookEvent): boolean {
  return !(agent === 'claude' && event.eventName === 'PostToolUseFailure');
}

/**
 * The stop's reply: before the call it denies it (the model reads the message and that the session
 * was ended), after the call it hands the model the message; both end the session.
 */
function stopReply(message: string, event: HookEvent): HookReply {
  const denied = event.kind === 'before_tool';
  return {
    kind: 'stop',
    denied,
    message: denied ? `${message}\nloopguard refused this call and ended ${endedRun(event)}.` : message,
    stopReason: `loopguard: ${message.split('\n')[0] ?? ''}`,
  };
}

/**
 * The calls the model made in the session so far, as every entry numbers a call (and `scan`): the
 * calls that ran, the calls loopguard denied before they ran (Codex's, whose stops deny calls and
 * let the turn go on) and the calls it refused (the model's own calls against loopguard).
 */
export function callsMade(session: Pick<HookSessionRecord, 'toolCalls'> | null, memory: Memory): number {
  return (session?.toolCalls ?? 0) + (memory.codex?.deniedCalls ?? 0) + (memory.refusedCalls ?? 0);
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
  const { results, seen, codex, refusedCalls, startedCalls, unendedStop } = (
    Array.isArray(parsed) ? { results: parsed } : (parsed ?? {})
  ) as {
    results?: unknown;
    seen?: unknown;
    codex?: { offset?: unknown; denied?: unknown; told?: unknown; deniedCalls?: unknown; refused?: unknown };
    refusedCalls?: unknown;
    startedCalls?: unknown;
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
    ...(Number.isSafeInteger(startedCalls) && (startedCalls as number) > 0
      ? { startedCalls: startedCalls as number }
      : {}),
    ...(typeof unendedStop === 'string' ? { unendedStop } : {}),
  };
}

/**
 * The session after loopguard refused the event's call (the model's own call against loopguard):
 * its `call_refused` entry recorded ({@link refusalEntry}), once however many times its hook is
 * installed, and counted among the calls the model made ({@link callsMade}). A session with no row
 * yet gets one, so that its later calls are numbered right and its refusal is listed under it.
 * @param message - the sentence the model was told.
 */
export function countRefusal(
  event: HookEvent,
  session: HookSessionRecord | null,
  context: GuardContext,
  message: string,
): HookSessionUpdate<undefined> {
  const memory = parseMemory(session?.lastResults);
  const call = event.callId === undefined ? undefined : `${event.eventName}:${event.callId}`;
  if (call !== undefined) {
    if (memory.seen.includes(call)) return { result: undefined };
    remember(memory.seen, call, MAX_SEEN_CALLS);
  }
  memory.refusedCalls = (memory.refusedCalls ?? 0) + 1;
  context.record(refusalEntry(event, context, message, callsMade(session, memory)));
  // The detector never observes a refused call (it never ran: no attempt, no change); it is told
  // of it, to number the calls after it as the model made them (the loop's words, not only its
  // entries' metadata). Codex's is told where its rollout holds the call.
  if (context.agent === 'codex' && event.callId !== undefined) {
    const codex = memory.codex ?? { offset: 0, denied: [], told: [] };
    codex.refused ??= [];
    remember(codex.refused, event.callId, MAX_SEEN_CALLS);
    memory.codex = codex;
  }
  const detector = context.agent === 'codex' ? undefined : restoreDetector(session, context.detector);
  detector?.countUnobservedCall();
  const snapshot = detector?.sealedSnapshot(SHA256_SEAL_CHECKSUM);
  if (session !== null)
    return {
      result: undefined,
      next: { ...withMemory(session, memory), ...(snapshot === undefined ? {} : { snapshot }) },
    };
  return { result: undefined, next: newSession(event, context, memory, snapshot) };
}

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

/**
 * What the event adds to the session's `toolCalls`: 1 for a call's result, unless that call was
 * counted when it started ({@link Memory.startedCalls}, then one fewer is left started); 0 else.
 */
export function resultCount(
  event: HookEvent,
  startedCalls: number | undefined,
): { toolCalls: 0 | 1; startedCalls?: number } {
  if (event.kind !== 'after_tool')
    return { toolCalls: 0, ...(startedCalls === undefined ? {} : { startedCalls }) };
  if (startedCalls === undefined) return { toolCalls: 1 };
  return { toolCalls: 0, ...(startedCalls > 1 ? { startedCalls: startedCalls - 1 } : {}) };
}

/**
 * The row of a session made at its first call, before that call's result: the call counted as
 * started ({@link Memory.startedCalls}), so that every door lists the session with it, running, and
 * ended by the same rule as any other once its agent is gone (killed during that call, sessions55).
 */
export function startedSession(
  event: HookEvent,
  context: Pick<GuardContext, 'detector'>,
): NonNullable<HookSessionUpdate<unknown>['next']> {
  return { ...newSession(event, context, { results: [], seen: [], startedCalls: 1 }), toolCalls: 1 };
}

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
      sessionId: event.sessionId,
      ...subagentFields(event),
      agent: context.agent,
      projectDir: event.projectDir,
      hookEvent: event.eventName,
      tool,
      command,
      toolCall,
      deniedBeforeRun: true,
    },
  };
}

/** Puts `item` first in `list`, dropping the oldest beyond `max`. */
export function remember(list: string[], item: string, max: number): void {
  list.unshift(item);
  list.length = Math.min(list.length, max);
}

/**
 * How an event stands to the events of its call answered before ({@link Memory.seen}):
 * - `again`: the call's latest event answered is this one (same name, same call id): a second hook
 *   entry's copy of it (a hook installed twice), answered once and counted once;
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
  if (latest === event.eventName) return 'again';
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

/** The detector's identity of an action: the same normalised text means the same action. */
export function keyOf(tool: string, input: unknown): string {
  return actionKey(tool, actionText(canonicalInput(tool, input)));
}

/** A tool call and its result as the detector's two steps. */
export function turnSteps(tool: string, input: unknown, output: string, error: boolean): Step[] {
  return [
    { type: 'action', tool, input },
    { type: 'observation', tool, output, error },
  ];
}

/** Puts `result` first, dropping the action's older result and the oldest beyond the bound. */
export function rememberResult(results: LastResult[], result: LastResult): void {
  const index = results.findIndex((r) => r.key === result.key);
  if (index !== -1) results.splice(index, 1);
  results.unshift(result);
  results.length = Math.min(results.length, MAX_LAST_RESULTS);
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
      sessionId: event.sessionId,
      ...subagentFields(event),
      agent: context.agent,
      projectDir: event.projectDir,
      hookEvent: event.eventName,
      ...(deniedBeforeRun ? { deniedBeforeRun: true } : {}),
    },
  };
}

/** What a stop ends: the session, or (Claude Code ends only the subagent whose call is stopped) the subagent's run. */
function endedRun(event: HookEvent): string {
  return event.parentSessionId === undefined ? 'the session' : "this subagent's run";
}

/**
 * What an entry says of a subagent's run besides its `sessionId` (the subagent's `agent_id`): the
 * session it belongs to and its type; nothing for a main thread.
 * @example subagentFields({ parentSessionId: 's', agentType: 'Explore', ... }); // { parentSessionId: 's', agentType: 'Explore' }
 */
export function subagentFields(event: Pick<HookEvent, 'parentSessionId' | 'agentType'>): {
  parentSessionId?: string;
  agentType?: string;
} {
  return {
    ...(event.parentSessionId === undefined ? {} : { parentSessionId: event.parentSessionId }),
    ...(event.agentType === undefined ? {} : { agentType: event.agentType }),
  };
}
