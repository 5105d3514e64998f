import { parseDay } from '../scan/days.js';

/**
 * `2026-11-29 19:45:32`: epoch ms in the user's time zone (the process's, `TZ`), as the dashboard
 * (the browser's zone) and `scan`'s days (the machine's) say it: a session late in the evening in
 * Los Angeles must not read as the next day in one door only.
 * @example localTime(Date.parse('2026-11-30T03:45:32Z')) // '2026-11-29 19:45:32' with TZ=America/Los_Angeles
 */
export function localTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/**
 * The name of the zone {@link localTime} writes in, for a column's heading: the `TZ` the user set
 * when it names a zone, else the system's (`UTC` on a machine without one).
 * @example timeZoneName() // 'America/Los_Angeles'
 */
export function timeZoneName(): string {
  const set = process.env.TZ;
  // ICU names some zones by an older alias (Asia/Kolkata as Asia/Calcutta): the user's own word wins
  if (set !== undefined && /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(set)) return set;
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
}

/**
 * A day alone (`YYYY-MM-DD` or `YYYYMMDD`, as `scan` takes it) as epoch ms in the user's time zone,
 * the one {@link localTime} writes in: its first moment, or with `through` the next day's (an end
 * that includes the day, as `scan --until` does). `recoveries --since 2026-11-29` starts where its
 * table's 29th does, not at UTC's midnight. `undefined` for anything else (a time, epoch ms), which
 * keeps its own reading.
 * @example localDayStart('2026-11-29') // Date.parse('2026-11-29T08:00:00Z') with TZ=America/Los_Angeles
 */
export function localDayStart(value: string, through = false): number | undefined {
  const day = parseDay(value);
  if (day === undefined) return undefined;
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, date + (through ? 1 : 0)).getTime();
}
