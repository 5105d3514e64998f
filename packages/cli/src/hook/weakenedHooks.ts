/**
 * loopguard's hook entries weakened by an edit of an agent's hooks file (trust70): still there, but
 * given less time (`timeout` lowered: a hook call cut short fails open, the call runs) or made
 * `async` (Claude Code runs an async hook in the background and goes on without its answer). Read
 * per event and matcher, over loopguard's entries of each group: the shortest timeout (none set:
 * the agent's default, the longest) and whether any is async. Raising a timeout, or another hook's
 * change, is left alone.
 */

/** How strong loopguard's entries of one event and matcher are. */
interface Strength {
  timeout: number;
  async: boolean;
}

/** The strength of loopguard's entries of each `event\0matcher` in `settings` (a parsed hooks file). */
function strengths(settings: unknown, isOurs: (entry: unknown) => boolean): Map<string, Strength> {
  const found = new Map<string, Strength>();
  const hooks = (settings as { hooks?: unknown } | null)?.hooks;
  if (typeof hooks !== 'object' || hooks === null) return found;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const { hooks: entries, matcher } = (group ?? {}) as { hooks?: unknown; matcher?: unknown };
      if (!Array.isArray(entries)) continue;
      for (const entry of entries.filter(isOurs) as Array<Record<string, unknown>>) {
        const key = `${event}\0${String(matcher ?? '')}`;
        const was = found.get(key) ?? { timeout: Number.POSITIVE_INFINITY, async: false };
        const timeout = typeof entry.timeout === 'number' ? entry.timeout : Number.POSITIVE_INFINITY;
        found.set(key, {
          timeout: Math.min(was.timeout, timeout),
          async: was.async || entry.async === true || entry.asyncRewake === true,
        });
      }
    }
  }
  return found;
}

/**
 * Whether `after` gives one of loopguard's hook entries of `before` a shorter timeout or makes it
 * async (both parsed hooks files; an entry gone is `hooksRemovedCall.ts`'s to judge).
 * @example weakensHooks({ hooks: { Stop: [{ hooks: [{ timeout: 10 }] }] } }, { hooks: { Stop: [{ hooks: [{ timeout: 1 }] }] } }, () => true); // true
 */
export function weakensHooks(before: unknown, after: unknown, isOurs: (entry: unknown) => boolean): boolean {
  const had = strengths(before, isOurs);
  if (had.size === 0) return false;
  const has = strengths(after, isOurs);
  for (const [key, was] of had) {
    const now = has.get(key);
    if (now !== undefined && (now.timeout < was.timeout || (now.async && !was.async))) return true;
  }
  return false;
}
