import { LoopGuardError } from '@loopguard/core';
import {
  type Step,
  StepLoopDetector,
  type StepLoopDetectorOptions,
  type StepVerdict,
} from '@loopguard/core/steps';
import type { HookSessionRecord, HookSessionUpdate } from '@loopguard/sqlite';
import type { GuardContext } from './guardContext.js';
import type { HookAgent, HookEvent, HookReply } from './hookEvent.js';
import { SHA256_SEAL_CHECKSUM } from './sealChecksum.js';
import { entryOf, refusalEntry } from './sessionEntries.js';
import {
  callsMade,
  deliveryOf,
  type LastResult,
  MAX_KEPT_OUTPUT,
  MAX_SEEN_CALLS,
  type Memory,
  parseMemory,
  remember,
  rememberResult,
  withMemory,
} from './sessionMemory.js';
import { keyOf, turnSteps } from './sessionSteps.js';
import { skippedCall } from './skippedCall.js';
import { judgedSession, newSession, resultCount } from './storedSession.js';

/**
 * Whether a repeat of the call whose last result is `last` can be judged before it runs, taken to
 * give that result again: only while nothing was changed since (`detector` has made no change
 * since `last`). After an edit the result may be the fix working; denying the call would stop the
 * session on a result it never gave.
 */
export function foreseeable(last: LastResult, detector: StepLoopDetector): boolean {
  return last.changes === detector.changeCount;
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
 * At an `after_tool` or `agent_stop` of another call, a started call whose result never came
 * (Claude Code skipped its hook: {@link Memory.startedCall}) is read from the transcript
 * (`context.readCall`) and judged first, in order, once ({@link skippedCall}).
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
    deniedCalls,
    startedCalls,
    startedCall,
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
  // the memory kept: the results, the calls seen, the refused, denied and started ones
  const memoryWith = (started: {
    startedCalls?: number | undefined;
    startedCall?: string | undefined;
  }): Memory => ({
    results: lastResults,
    seen,
    ...(refusedCalls === undefined ? {} : { refusedCalls }),
    ...(deniedCalls === undefined ? {} : { deniedCalls }),
    ...(started.startedCalls === undefined ? {} : { startedCalls: started.startedCalls }),
    ...(started.startedCall === undefined ? {} : { startedCall: started.startedCall }),
  });
  if (event.kind === 'before_tool' && session !== null && unendedStop !== undefined)
    return {
      result: stopReply(unendedStop, event),
      next: withMemory(session, memoryWith({ startedCalls, startedCall })),
    };
  const detector = restoreDetector(session, context.detector);
  const counts = { nudges: session?.nudges ?? 0, stops: session?.stops ?? 0 };
  const observe = (steps: Step[]): StepVerdict | undefined =>
    steps.map((step) => detector.observe(step)).find((verdict) => verdict.action !== 'continue');
  const skipped = skippedCall(event, { startedCalls, startedCall }, seen, context);
  let started: Pick<Memory, 'startedCalls' | 'startedCall'> = {
    ...(startedCalls === undefined ? {} : { startedCalls }),
    ...(startedCall === undefined ? {} : { startedCall }),
  };
  let lateVerdict: StepVerdict | undefined;
  if (skipped !== undefined) {
    lateVerdict = observe(skipped.steps);
    rememberResult(lastResults, { ...skipped.result, changes: detector.changeCount });
    started = skipped.started;
  }

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
              // the first call, still started: its result is not counted again when it comes
              next: withMemory(session, memoryWith({ startedCalls, startedCall })),
            };
      if (last === undefined || !foreseeable(last, detector)) return silent;
      verdict = detector.foresee(event.tool, event.input, last.output, last.error);
      if (verdict?.action !== 'stop') return silent;
      break;
    }
    case 'after_tool': {
      verdict = observe(turnSteps(event.tool, event.input, event.output, event.error, event.refused));
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
  // the skipped call's verdict first (its turn came first), then the event's; a stop is not undone
  for (const found of [lateVerdict, verdict]) {
    if (found === undefined || found.action === 'continue') continue;
    counts[found.action === 'stop' ? 'stops' : 'nudges']++;
    // the detector numbers the refused calls too (countRefusal): scan counts them
    context.record(entryOf(found, event, detector, context));
    const message = found.message ?? '';
    if (reply.kind === 'stop') continue;
    if (found.action === 'nudge') reply = { kind: 'nudge', message };
    else {
      reply = stopReply(message, event);
      if (event.kind === 'after_tool' && !endsAfter(context.agent, event)) stopToCarry = message;
    }
  }
  const counted = resultCount(event, started);
  return {
    result: event.kind === 'agent_stop' ? { kind: 'silent' } : reply,
    next: judgedSession(event, session, {
      snapshot: detector.sealedSnapshot(SHA256_SEAL_CHECKSUM),
      memory: {
        ...memoryWith(counted),
        ...(stopToCarry === undefined ? {} : { unendedStop: stopToCarry }),
      },
      steps: detector.stepCount,
      toolCalls: counted.toolCalls,
      ...counts,
    }),
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
  // Codex's detector is told where its rollout holds the call
  if (context.agent === 'codex' && event.callId !== undefined) {
    const codex = memory.codex ?? { offset: 0, denied: [], told: [] };
    codex.refused ??= [];
    remember(codex.refused, event.callId, MAX_SEEN_CALLS);
    memory.codex = codex;
  }
  return unobservedCall(event, session, context, memory);
}

/**
 * The session after a call loopguard denied at its budget, before it ran (Claude Code's, Gemini
 * CLI's: Codex's is `countSpendDenial`): counted among the calls the model made, so that the next
 * denial's entry is at the call after (a Gemini CLI subagent asks again after the stop: each denial
 * its own number, as `scan` numbers them; sess66).
 */
export function countBudgetDenial(
  event: HookEvent,
  session: HookSessionRecord | null,
  context: GuardContext,
): HookSessionUpdate<undefined> {
  const memory = parseMemory(session?.lastResults);
  memory.deniedCalls = (memory.deniedCalls ?? 0) + 1;
  // counted here: the reply's `PostToolBatch` does not feed it again
  if (event.callId !== undefined) remember(memory.seen, `${event.eventName}:${event.callId}`, MAX_SEEN_CALLS);
  return unobservedCall(event, session, context, memory);
}

/**
 * The session with `memory` after a call that never ran. The detector never observes such a call
 * (no attempt, no change); Claude Code's and Gemini CLI's is told of it, to number the calls after
 * it as the model made them (the loop's words, not only its entries' metadata).
 */
function unobservedCall(
  event: HookEvent,
  session: HookSessionRecord | null,
  context: GuardContext,
  memory: Memory,
): HookSessionUpdate<undefined> {
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

/** What a stop ends: the session, or (Claude Code ends only the subagent whose call is stopped) the subagent's run. */
function endedRun(event: HookEvent): string {
  return event.parentSessionId === undefined ? 'the session' : "this subagent's run";
}
