/** Most calls awaiting their result that are remembered (an agent runs a few in parallel). */
export const MAX_OPEN_CALLS = 256;

/**
 * Call id → tool name for the calls still awaiting their result, so that a result names its tool.
 * Bounded: past {@link MAX_OPEN_CALLS} the oldest call is forgotten (its result then names no
 * tool), so a transcript whose calls never get a result holds no more than that.
 */
export class CallNames {
  private readonly names = new Map<string, string>();

  /** Notes a call; an id that is not a string is not noted. */
  open(id: unknown, tool: string): void {
    if (typeof id !== 'string') return;
    this.names.delete(id);
    this.names.set(id, tool);
    if (this.names.size > MAX_OPEN_CALLS) {
      const oldest = this.names.keys().next().value as string;
      this.names.delete(oldest);
    }
  }

  /** The tool of the call `id` answers, forgetting the call; `undefined` when unknown. */
  close(id: unknown): string | undefined {
    if (typeof id !== 'string') return undefined;
    const tool = this.names.get(id);
    this.names.delete(id);
    return tool;
  }
}
