import type { HookSessionRecord, HookSessionUpdate } from '@loopguard/sqlite';
import type { GuardContext } from './guardContext.js';
import { guardSession } from './guardSession.js';
import type { BatchCall, HookEvent, HookReply } from './hookEvent.js';
import { parseMemory } from './sessionMemory.js';
import type { skippedCall } from './skippedCall.js';

/** An `after_batch` event: a model reply's calls with their results. */
type AfterBatch = Extract<HookEvent, { kind: 'after_batch' }>;

/**
 * Whether any event of call `callId` reached the session already (`seen` holds `<event>:<id>`): its
 * `PostToolUse` or `PostToolUseFailure` fed it, a `PreToolUse` loopguard denied or refused counted
 * it, its result was read from the transcript, or this batch was delivered before (a hook entry
 * installed twice). Only a call no hook was told of is left for the batch.
 */
function reachedSession(seen: readonly string[], callId: string): boolean {
  return seen.some((entry) => entry.slice(entry.indexOf(':') + 1) === callId);
}

/**
 * Whether the batch has a call it may judge: one Claude Code refused before any hook ran, named by
 * its id. A reply whose calls all ran (each fed by its own `PostToolUse` or `PostToolUseFailure`, or
 * left to the transcript read) has none: its batch is answered with silence from the event alone,
 * the project's configuration and database neither read nor written (`guardProject`).
 */
export function batchJudgesAnyCall(event: AfterBatch): boolean {
  return event.calls.some(judgeable);
}

/** A call of the batch that {@link guardBatch} may feed: refused by Claude Code, with its id. */
function judgeable(call: BatchCall): call is BatchCall & { callId: string } {
  return call.refused === true && call.callId !== undefined;
}

/**
 * One `PostToolBatch` (Claude Code): the calls of the reply that Claude Code refused itself before
 * any hook ran (an `Edit` whose old text is not in the file, a tool it lacks, an input it rejects:
 * its `<tool_use_error>` text) and that no other hook event fed are judged in the reply's order, each
 * as the after-call event
 * it never had ({@link guardSession}, under the batch's event name and the call's id, which marks it
 * fed). A stop outranks a nudge; the last of a kind is the one answered. Nothing is written when the
 * batch feeds no call (the common reply, whose calls all ran their hooks). Another call no hook fed
 * (a result hook Claude Code skipped while loopguard's server connected) is left to the transcript
 * read ({@link skippedCall}): the batch does not say whether the model got its result as an error.
 */
export function guardBatch(
  event: AfterBatch,
  session: HookSessionRecord | null,
  context: GuardContext,
): HookSessionUpdate<HookReply> {
  const { calls, ...base } = event;
  let current = session;
  let next: HookSessionUpdate<HookReply>['next'];
  let reply: HookReply = { kind: 'silent' };
  for (const call of calls) {
    if (!judgeable(call) || reachedSession(parseMemory(current?.lastResults).seen, call.callId)) continue;
    const update = guardSession(afterCall(base, call, call.callId), current, context);
    if (update.result.kind === 'stop' || (update.result.kind === 'nudge' && reply.kind !== 'stop'))
      reply = update.result;
    if (update.next === undefined) continue;
    next = update.next;
    current = { ...update.next, createdAt: current?.createdAt ?? 0, updatedAt: current?.updatedAt ?? 0 };
  }
  return next === undefined ? { result: reply } : { result: reply, next };
}

/** The batch's call as the after-call event it never had. */
function afterCall(base: Omit<AfterBatch, 'calls' | 'kind'>, call: BatchCall, callId: string): HookEvent {
  return {
    ...base,
    kind: 'after_tool',
    callId,
    tool: call.tool,
    input: call.input,
    output: call.output,
    error: call.error,
    refused: call.refused,
  };
}
