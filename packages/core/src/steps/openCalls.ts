/** Most calls awaiting their result that a parser remembers (an agent runs a few in parallel). */
export const MAX_OPEN_CALLS = 256;

/**
 * Notes `id → tool` for a call awaiting its result, forgetting the oldest past
 * {@link MAX_OPEN_CALLS}: a transcript whose calls never get a result holds no more than that (the
 * result of a forgotten call then names no tool).
 * @example openCall(names, 'toolu_1', 'Bash');
 */
export function openCall(names: Map<string, string>, id: string, tool: string): void {
  names.delete(id);
  names.set(id, tool);
  if (names.size > MAX_OPEN_CALLS) names.delete(names.keys().next().value as string);
}
