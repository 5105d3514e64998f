import { StepLoopDetector, type StepVerdict } from '@loopguard/core/steps';
import type { HookSessionRecord, HookSessionUpdate } from '@loopguard/sqlite';
import type { RolloutSteps } from './codexRollout.js';
import type { GuardContext } from './guardContext.js';
import { foreseeable, restoreDetector } from './guardSession.js';
import type { HookEvent, HookReply } from './hookEvent.js';
import { entryOf } from './sessionEntries.js';
import {
  deliveryOf,
  MAX_KEPT_OUTPUT,
  MAX_SEEN_CALLS,
  type Memory,
  parseMemory,
  remember,
  rememberResult,
  withMemory,
} from './sessionMemory.js';
import { keyOf, turnSteps } from './sessionSteps.js';
import { judgedSession, newSession, resultCount } from './storedSession.js';

/** Most recent calls remembered as denied, or as answered with a verdict. */
const MAX_ANSWERED_CALLS = 64;

/** What {@link guardCodexSession} needs besides {@link GuardContext}. */
export interface CodexGuardContext extends GuardContext {
  /** The steps of the session's rollout since `offset`, up to the event's own call (`readRolloutSteps`). */
  readRollout(offset: number): RolloutSteps;
}

/**
 * One Codex hook call. Codex's events carry a command's output without its exit code, and it
 * writes the call's output to its rollout only after the `PostToolUse` hooks return; so the
 * session's detector is fed what the rollout holds before the event's call, by Codex's one
 * translation (a failure is a failure, as `scan` and `run --agent-stream codex` read it), and
 * records the verdicts it finds there. The model is answered at once:
 * - `after_tool`: the call with its output is judged on a copy of the detector, taken to have
 *   failed as that action's last result did (no exit code yet); a nudge is handed to the model,
 *   a stop too (Codex cannot end the turn); a verdict the rollout then shows and the model was not
 *   told is told at the next call;
 * - `before_tool`: a repeat whose last result would make the stop, nothing changed since (see
 *   `foreseeable`), is denied before it runs, on a
 *   copy of the detector; the denied call (in the rollout with Codex's refusal as its output) is
 *   never fed to the detector, so every further repeat is denied as well;
 * - `agent_stop`: the rollout to its end (the turn's last message); recorded only.
 */
export function guardCodexSession(
  event: HookEvent,
  session: HookSessionRecord | null,
  context: CodexGuardContext,
): HookSessionUpdate<HookReply> {
  const silent: HookSessionUpdate<HookReply> = { result: { kind: 'silent' } };
  if (session !== null && !session.enabled) return silent;
  const memory = parseMemory(session?.lastResults);
  const call = event.callId === undefined ? undefined : `${event.eventName}:${event.callId}`;
  const codex = memory.codex ?? { offset: 0, denied: [], told: [] };
  // A call about to run under the id of a call denied before it ran is that event's copy (a hook
  // installed twice) only while the rollout does not hold the denied call's end: read first (trust50).
  const underDeniedId = event.kind === 'before_tool' && codex.denied.includes(event.callId ?? '');
  const delivered = deliveryOf(event, memory.seen);
  if (delivered === 'again' && !underDeniedId) return silent;
  // Most calls are not repeats: answered without reading the rollout or restoring the detector
  // (the next PostToolUse reads what they add).
  if (
    event.kind === 'before_tool' &&
    delivered === 'new' &&
    !memory.results.some((r) => r.key === keyOf(event.tool, event.input))
  )
    return silent;
  const detector = restoreDetector(session, context.detector);
  const counts = { nudges: session?.nudges ?? 0, stops: session?.stops ?? 0 };
  const record = (verdict: StepVerdict, denied = false) => {
    counts[verdict.action === 'stop' ? 'stops' : 'nudges']++;
    context.record(entryOf(verdict, event, detector, context, denied));
  };

  const untold = readRollout(context.readRollout(codex.offset), detector, memory, codex, record);
  let reply: HookReply = untold === undefined ? { kind: 'silent' } : replyOf(untold, false);
  const copy = deliveryOf(event, memory.seen) === 'again';
  if (call !== undefined && !copy) remember(memory.seen, call, MAX_SEEN_CALLS);
  if ((event.kind === 'before_tool' || event.kind === 'after_tool') && !copy) {
    const key = keyOf(event.tool, event.input);
    const last = memory.results.find((r) => r.key === key);
    const probe = StepLoopDetector.restore(detector.snapshot(), context.detector);
    // the detector counts the calls that ran; the model made the denied ones too, and each denial
    // falls at its own call (the calls scan counts in the rollout): the probe numbers a call about
    // to run, and its stop's words, among all of them (story56)
    const deniedCalls = event.kind === 'before_tool' ? (codex.deniedCalls ?? 0) : 0;
    for (let n = 0; n < deniedCalls; n++) probe.countUnobservedCall();
    const result =
      event.kind === 'after_tool'
        ? { output: event.output, error: last?.error ?? false }
        : last !== undefined && foreseeable(last, detector)
          ? last
          : undefined;
    let verdict =
      result === undefined
        ? undefined
        : event.kind === 'before_tool'
          ? probe.foresee(event.tool, event.input, result.output, result.error)
          : turnSteps(event.tool, event.input, result.output, result.error)
              .map((step) => probe.observe(step))
              .find((v) => v.action !== 'continue');
    // a repeat of the call a stop fell at after it ran, nothing changed since: denied with that stop
    // (the detector judged its loop over at that stop); one that runs drops it
    if (event.kind === 'before_tool' && codex.stopped?.key === key) {
      if (verdict !== undefined && verdict.action !== 'stop')
        verdict = refusedRepeat(codex.stopped.verdict, verdict.toolCall);
      else if (verdict === undefined) delete codex.stopped;
    }
    if (event.kind === 'after_tool' && verdict?.action === 'stop') codex.stopped = { key, verdict };
    if (event.kind === 'before_tool' && verdict?.action === 'stop') {
      record(verdict, true);
      codex.deniedCalls = deniedCalls + 1;
      if (event.callId !== undefined) remember(codex.denied, event.callId, MAX_ANSWERED_CALLS);
      reply = replyOf(verdict, true);
    } else if (event.kind === 'after_tool' && verdict !== undefined) {
      if (event.callId !== undefined) remember(codex.told, event.callId, MAX_ANSWERED_CALLS);
      reply = replyOf(verdict, false);
    }
  }
  const { toolCalls: counted, ...started } = resultCount(event, memory);
  const { startedCalls: _, startedCall: _call, ...rest } = memory;
  const kept: Memory = { ...rest, ...started, codex };
  return {
    result: event.kind === 'agent_stop' ? { kind: 'silent' } : reply,
    // Codex fires PostToolUse only for a call that ran
    next: judgedSession(event, session, {
      snapshot: JSON.stringify(detector.snapshot()),
      memory: kept,
      steps: detector.stepCount,
      toolCalls: counted,
      ...counts,
    }),
  };
}

/**
 * Feeds the rollout's new steps to the session's detector (but those of the calls the hook denied,
 * and of those it refused, which are only counted) and remembers each call's result; records each verdict. Returns the
 * last verdict of a call the model was not told of.
 */
function readRollout(
  read: RolloutSteps,
  detector: StepLoopDetector,
  memory: Memory,
  codex: NonNullable<Memory['codex']>,
  record: (verdict: StepVerdict) => void,
): StepVerdict | undefined {
  codex.offset = read.offset;
  let untold: StepVerdict | undefined;
  let action: string | undefined;
  for (const [i, step] of read.steps.entries()) {
    const callId = read.callIds[i];
    // A denied call never ran (its output is Codex's refusal): the session stays where its stop
    // was, so that every further repeat is denied too.
    if (callId !== undefined && codex.denied.includes(callId)) {
      if (step.type === 'observation') endAnswered(codex.denied, callId, memory.seen);
      continue;
    }
    // A refused call (the model's own against loopguard) never ran either: only counted.
    if (callId !== undefined && codex.refused?.includes(callId)) {
      if (step.type === 'action') detector.countUnobservedCall();
      else endAnswered(codex.refused, callId, memory.seen);
      continue;
    }
    const verdict = detector.observe(step);
    if (step.type === 'action') action = keyOf(step.tool, step.input);
    if (verdict.action === 'stop' && action !== undefined)
      codex.stopped = {
        key: action,
        verdict: { ...verdict, toolCall: verdict.toolCall + (codex.deniedCalls ?? 0) },
      };
    if (step.type === 'observation' && action !== undefined) {
      const output = step.output.slice(0, MAX_KEPT_OUTPUT);
      rememberResult(memory.results, {
        key: action,
        output,
        error: step.error === true,
        changes: detector.changeCount,
      });
    }
    if (step.type === 'observation') action = undefined;
    if (verdict.action === 'continue') continue;
    // the detector counts the calls that ran: the denied ones before this call are the model's too
    record({ ...verdict, toolCall: verdict.toolCall + (codex.deniedCalls ?? 0) });
    if (callId !== undefined && !codex.told.includes(callId)) untold = verdict;
  }
  return untold;
}

/**
 * The session after the spend guard denied the event's call (in Codex its stop is every further
 * call denied before it runs): the call counts among the denied ones, so that the next denial falls
 * at the next call the model made, and the rollout's read skips it as it skips the loop guard's.
 * A session with no row yet (denied its first call: the project's day spent) gets one, so that every
 * door lists it and its stop (qa51).
 */
export function countSpendDenial(
  event: HookEvent,
  session: HookSessionRecord | null,
  context: Pick<GuardContext, 'detector'>,
): HookSessionUpdate<undefined> {
  const memory = parseMemory(session?.lastResults);
  const codex = memory.codex ?? { offset: 0, denied: [], told: [] };
  codex.deniedCalls = (codex.deniedCalls ?? 0) + 1;
  if (event.callId !== undefined) remember(codex.denied, event.callId, MAX_ANSWERED_CALLS);
  const kept: Memory = { ...memory, codex };
  const next = session === null ? newSession(event, context, kept) : withMemory(session, kept);
  // each denial is a stop of the session's, as a loop stop's repeats are: every door says the later
  // ones (`2 more calls refused after the stop`)
  return { result: undefined, next: { ...next, stops: next.stops + 1 } };
}

/**
 * A call denied or refused before it ran, read to its end in the rollout: its id is dropped from
 * `answered` once, and its `PreToolUse` from `seen`, so that a later call under the same id (a
 * provider that lets the model write call ids) is read and judged as the new call it is (trust50).
 */
function endAnswered(answered: string[], callId: string, seen: string[]): void {
  answered.splice(answered.indexOf(callId), 1);
  const pre = seen.indexOf(`PreToolUse:${callId}`);
  if (pre !== -1) seen.splice(pre, 1);
}

/**
 * The stop a repeat of the call `stopped` fell at (after it ran) is denied with, at call `call`: its
 * head says the call was refused before it ran and which call it repeats, as a foreseen stop's does
 * (story56: every door reads that the call never ran), then the stop's evidence and advice.
 */
function refusedRepeat(stopped: StepVerdict, call: number): StepVerdict {
  const [, ...rest] = (stopped.message ?? '').split('\n');
  const head = `Stopped (${stopped.loopType}): call ${call} was refused before it ran: it repeats call ${stopped.toolCall}, with nothing changed since, where loopguard stopped the loop.`;
  return { ...stopped, toolCall: call, message: [head, ...rest].join('\n') };
}

/**
 * The model's words of a verdict. Codex cannot end the turn, so a stop says what comes of the loop's
 * next repeat, denied before it runs (sessions60: a stop found after its call ran said nothing of it).
 */
function replyOf(verdict: StepVerdict, denied: boolean): HookReply {
  const message = verdict.message ?? '';
  if (verdict.action === 'nudge') return { kind: 'nudge', message };
  return {
    kind: 'stop',
    denied,
    message: `${message}\n${denied ? 'loopguard refused this call, and refuses' : 'loopguard refuses'} every repeat of it.`,
    stopReason: `loopguard: ${message.split('\n')[0] ?? ''}`,
  };
}
