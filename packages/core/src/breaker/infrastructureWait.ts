/** Default first wait after an infrastructure error: 30 s. */
export const DEFAULT_INFRASTRUCTURE_BACKOFF_MS = 30_000;
/** Default longest wait when the agent states no reset time: 15 min. */
export const DEFAULT_INFRASTRUCTURE_MAX_BACKOFF_MS = 15 * 60_000;

/**
 * How long to wait after the `consecutive`-th infrastructure error in a row: until the reset time
 * when the agent stated one (in the future), else exponential back-off `baseMs · 2^(consecutive-1)`
 * capped at `maxMs`.
 * @example
 * infrastructureWaitMs({ consecutive: 3, now: 0, baseMs: 1000 }); // 4000
 * infrastructureWaitMs({ consecutive: 1, now: 0, resetAt: 60_000 }); // 60000
 */
export function infrastructureWaitMs(input: {
  /** Infrastructure errors in a row, ≥ 1. */
  consecutive: number;
  /** Now, epoch ms. */
  now: number;
  /** The reset time the agent stated, epoch ms (see {@link resetTimeOf}). */
  resetAt?: number | null;
  /** First wait. @default 30000 */
  baseMs?: number;
  /** Longest back-off wait (a stated reset time is honoured beyond it). @default 900000 */
  maxMs?: number;
}): number {
  const { consecutive, now, resetAt } = input;
  if (resetAt !== null && resetAt !== undefined && resetAt > now) return resetAt - now;
  const base = input.baseMs ?? DEFAULT_INFRASTRUCTURE_BACKOFF_MS;
  const max = input.maxMs ?? DEFAULT_INFRASTRUCTURE_MAX_BACKOFF_MS;
  return Math.min(max, base * 2 ** Math.max(0, consecutive - 1));
}

const UNITS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
};

/**
 * The reset time an agent states in an infrastructure message, epoch ms, or `null`:
 * `usage limit reached|1700000000` (Claude Code, epoch seconds), `resets at 2026-11-22T05:00:00Z`,
 * `retry after 30 seconds`, `try again in 5 minutes`, `Retry-After: 30`.
 * @example resetTimeOf('Rate limited. Try again in 2 minutes.', 0); // 120000
 */
export function resetTimeOf(text: string, now: number): number | null {
  const epoch = /limit[^|\n]*\|(\d{10})\b/i.exec(text);
  if (epoch?.[1] !== undefined) return Number(epoch[1]) * 1000;
  const iso = /\bresets?\s+(?:at\s+)?(\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)/i.exec(text);
  if (iso?.[1] !== undefined) {
    const at = Date.parse(iso[1]);
    if (Number.isFinite(at)) return at;
  }
  const relative =
    /\b(?:retry|try again)\s+(?:after|in)\s+(\d+(?:\.\d+)?)\s*(s|sec|seconds?|m|min|minutes?|h|hours?)\b/i.exec(
      text,
    );
  if (relative?.[1] !== undefined && relative[2] !== undefined) {
    const unit = relative[2].toLowerCase().replace(/s$/, '');
    const ms = UNITS[unit] ?? UNITS[unit.charAt(0)] ?? 1000;
    return now + Number(relative[1]) * ms;
  }
  const header = /\bretry-after:\s*(\d+)\b/i.exec(text);
  if (header?.[1] !== undefined) return now + Number(header[1]) * 1000;
  return null;
}
