const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration: `250ms`, `30s`, `15m`, `2h`, or a bare number of milliseconds.
 * @returns milliseconds, or `null` when `text` is not a duration.
 * @example parseDuration('15m'); // 900000
 */
export function parseDuration(text: string | number): number | null {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (match?.[1] === undefined) return null;
  return Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
}

/**
 * Formats milliseconds for people: `950ms`, `42s`, `3m 05s`, `1h 02m`.
 * @example formatDuration(185_000); // '3m 05s'
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}
