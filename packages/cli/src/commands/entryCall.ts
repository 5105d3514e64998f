/**
 * The tool call a session's entry (nudge, stop, spend entry, refusal) fell at, as every door
 * says it (`call 4`), from the entry's `metadata.toolCall`, and for a `loopguard run`'s entry the
 * iteration whose agent session that call counts (`call 4 of iteration 2`, as the run's summary says
 * it: sessions60); `undefined` for an entry without one (an orchestrator's recovery, a Codex
 * refusal recorded before it was numbered).
 * @example entryCall({ toolCall: 4 }) // 'call 4'
 */
export function entryCall(metadata: Readonly<Record<string, unknown>>): string | undefined {
  const { toolCall: call, iteration } = metadata;
  if (typeof call !== 'number') return undefined;
  return typeof iteration === 'number' ? `call ${call} of iteration ${iteration}` : `call ${call}`;
}
