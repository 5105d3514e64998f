import { loopKindWords } from '@loopguard/core/internal';
import { formatMoney } from './money.js';
import type { ScannedSession } from './scannedSession.js';

const calls = (n: number) => `${n.toLocaleString('en-US')} tool call${n === 1 ? '' : 's'}`;
const kindText = (kind: string | null | undefined) => (kind ? ` (${loopKindWords(kind)})` : '');

/** The stop the transcript holds, loopguard's own (a loop's or the spend guard's): its tool call and kind. */
function transcriptStop(
  session: ScannedSession,
): { on: 'loop' | 'spend'; call: number | null; kind: string } | undefined {
  const loop = session.loops.find((candidate) => candidate.loopguard === 'stopped');
  if (loop !== undefined) return { on: 'loop', call: loop.stopCall, kind: loop.stopKind ?? loop.kind };
  if (session.spendStop !== undefined) return { on: 'spend', call: session.spendStop.call, kind: '' };
  return undefined;
}

/** The replay's first stop: its tool call and kind. */
function replayStop(session: ScannedSession): { on: 'loop'; call: number | null; kind: string } | undefined {
  const loop = session.loops.find((candidate) => candidate.stopStep !== null);
  return loop === undefined
    ? undefined
    : { on: 'loop', call: loop.stopCall, kind: loop.stopKind ?? loop.kind };
}

/** What the replay would do where the transcript holds no stop of loopguard's: `a replay would stop it at call 4 (same error)`. */
function replayText(session: ScannedSession): string {
  const loop = session.loops.find((candidate) => candidate.stopStep !== null);
  if (loop !== undefined)
    return `a replay would stop it at call ${loop.stopCall}${kindText(loop.stopKind ?? loop.kind)}`;
  const nudged = session.loops[0];
  return nudged === undefined
    ? 'a replay finds no loop'
    : `a replay would nudge it at call ${nudged.nudgeCall} and not stop it`;
}

/**
 * Two amounts the user reads as one: the same when shown, or apart only by a sum's floating-point
 * error (summed in another order, `0.000104999…` shows `$0.00010` beside `$0.00011`).
 */
function sameDollars(a: number, b: number): boolean {
  return formatMoney(a) === formatMoney(b) || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * Where loopguard's record of a session (what `status` and the other doors say) and its transcript
 * tell it differently, in the user's words; `undefined` when they agree or there is no record.
 * Compared: the stop (a loop's or the spend guard's, and its tool call), the tool calls that ran,
 * and the dollars of a session whose spend guard counted them (with `subagentCostUsd`, what its
 * subagents' transcripts cost: the record counts their replies too). A session the user switched
 * off (its record says so) differs only by a stop.
 * @example recordDifference(session) // 'loopguard stopped it at call 4 (same error) and the transcript holds no stop: a replay would stop it at call 4 (same error)'
 */
export function recordDifference(session: ScannedSession, subagentCostUsd?: number): string | undefined {
  const record = session.record;
  if (record === undefined) return undefined;
  const parts: string[] = [];
  // a run's stream watcher kills the agent at its stop: the stream holds no mark of it, the replay's stop is it
  const held = transcriptStop(session) ?? (record.run === undefined ? undefined : replayStop(session));
  const stop = record.stop;
  // a spend stop at no call of the session's own: its subagent's call reached the session's budget,
  // and the subagent's transcript holds the stop (sess66): nothing of it to compare here
  const inSubagent = stop?.on === 'spend' && stop.call === null && held === undefined;
  if (
    stop !== null &&
    !inSubagent &&
    (held === undefined || held.on !== stop.on || held.call !== stop.call)
  ) {
    const did =
      stop.on === 'spend'
        ? `loopguard's spend guard stopped it at call ${stop.call}`
        : `loopguard stopped it at call ${stop.call}${kindText(stop.kind)}`;
    const transcript =
      held === undefined
        ? `the transcript holds no stop: ${replayText(session)}`
        : `the transcript holds its ${held.on === 'spend' ? 'spend ' : ''}stop at call ${held.call}`;
    parts.push(`${did} and ${transcript}`);
  } else if (stop === null && held !== undefined) {
    parts.push(
      `the transcript holds loopguard's ${held.on === 'spend' ? 'spend ' : ''}stop at call ${held.call}, its record no stop`,
    );
  } else if (stop === null && !record.switchedOff && session.loops.some((loop) => loop.stopStep !== null)) {
    parts.push(`loopguard did not stop it and ${replayText(session)} (with its project's options)`);
  }
  // a session the user switched off: its later calls were not judged, counted or priced, and its
  // record says so (codex58)
  if (record.switchedOff) return parts.length === 0 ? undefined : parts.join('; ');
  if (record.toolCalls !== null && record.toolCalls !== session.toolCalls)
    parts.push(
      record.toolCalls < session.toolCalls
        ? `loopguard's hooks saw ${record.toolCalls.toLocaleString('en-US')} of the ${calls(session.toolCalls)} that ran`
        : `loopguard's hooks saw ${calls(record.toolCalls)} run, the transcript holds ${session.toolCalls.toLocaleString('en-US')}`,
    );
  const transcriptCost =
    typeof session.costUsd === 'number' ? session.costUsd + (subagentCostUsd ?? 0) : undefined;
  if (record.costUsd !== null && transcriptCost !== undefined && !sameDollars(record.costUsd, transcriptCost))
    parts.push(
      `loopguard's spend guard counted ${formatMoney(record.costUsd)}; the transcript's replies${subagentCostUsd === undefined ? '' : " (its subagents' with them)"} cost ${formatMoney(transcriptCost)} at its project's prices`,
    );
  return parts.length === 0 ? undefined : parts.join('; ');
}
