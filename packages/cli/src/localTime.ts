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
