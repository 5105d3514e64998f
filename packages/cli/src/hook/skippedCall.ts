import type { Step } from '@loopguard/core/steps';
import type { GuardContext } from './guardContext.js';
import type { HookEvent } from './hookEvent.js';
import {
  type LastResult,
  MAX_KEPT_OUTPUT,
  MAX_SEEN_CALLS,
  type Memory,
  NOT_IN_TRANSCRIPT,
  READ_IN_TRANSCRIPT,
  remember,
} from './sessionMemory.js';
import { keyOf } from './sessionSteps.js';

/** How many times a skipped call's result is looked for in the transcript before it is left to its own hook. */
export const MAX_TRANSCRIPT_READS = 3;

/** How many reads of the transcript did not find call `callId`'s result ({@link NOT_IN_TRANSCRIPT} marks). */
function timesNotFound(seen: readonly string[], callId: string): number {
  const mark = `${NOT_IN_TRANSCRIPT}:${callId}`;
  return seen.reduce((count, entry) => (entry === mark ? count + 1 : count), 0);
}

/**
 * The started call whose result hook Claude Code skipped (its MCP server still connecting: qa60),
 * read from the session's transcript at an `after_tool` or `agent_stop` of another call, once: its
 * steps, its result to remember, and what stays started once it is judged (it was counted when it
 * started); `seen` remembers the read ({@link READ_IN_TRANSCRIPT}: its own hook, come after all,
 * is a copy). `undefined` when there is none, no transcript is read, or the transcript holds no
 * result of it yet ({@link NOT_IN_TRANSCRIPT}: a call still running beside the event's, whose own
 * hook brings it, or a result Claude Code writes to its transcript after the next call's hook, as
 * the real CLI does: read again at the next events, {@link MAX_TRANSCRIPT_READS} times in all, so
 * that a transcript that never holds it costs three reads, not one a call).
 */
export function skippedCall(
  event: HookEvent,
  started: { startedCalls?: number | undefined; startedCall?: string | undefined },
  seen: string[],
  context: Pick<GuardContext, 'readCall'>,
):
  | {
      steps: Step[];
      result: Omit<LastResult, 'changes'>;
      started: Pick<Memory, 'startedCalls' | 'startedCall'>;
    }
  | undefined {
  const { startedCalls, startedCall } = started;
  if (
    context.readCall === undefined ||
    event.kind === 'before_tool' ||
    startedCall === undefined ||
    event.callId === startedCall ||
    timesNotFound(seen, startedCall) >= MAX_TRANSCRIPT_READS
  )
    return undefined;
  const steps = context.readCall(startedCall);
  const [action, observation] = steps;
  const found = action?.type === 'action' && observation?.type === 'observation';
  remember(seen, `${found ? READ_IN_TRANSCRIPT : NOT_IN_TRANSCRIPT}:${startedCall}`, MAX_SEEN_CALLS);
  if (!found) return undefined;
  return {
    steps,
    result: {
      key: keyOf(action.tool, action.input),
      output: observation.output.slice(0, MAX_KEPT_OUTPUT),
      error: observation.error === true,
    },
    started: startedCalls !== undefined && startedCalls > 1 ? { startedCalls: startedCalls - 1 } : {},
  };
}
