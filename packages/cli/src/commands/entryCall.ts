/**
 * The tool call a session's entry (nudge, stop, spend entry, refusal) fell at, as every door
 * says it (`call 4`), from the entry's `metadata.toolCall`; `undefined` for an entry without one
 * (an orchestrator's recovery, a Codex refusal recorded before it was numbered).
 * @example entryCall({ toolCall: 4 }) // 'call 4'
 */
export function entryCall(metadata: Readonly<Record<string, unknown>>): string | undefined {
  const call = metadata.toolCall;
  return typeof call === 'number' ? `call ${call}` : undefined;
}
