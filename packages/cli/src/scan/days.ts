// Days as `loopguard scan --since/--until` read them. Apart from the session filter so that the
// command's option parsers load nothing else: the command starts its workers only once its own
// modules are loaded (the filter's loads every transcript parser and the step detector, ≈ 0.2 s).

/**
 * A day as ccusage takes it, `YYYYMMDD` or `YYYY-MM-DD`, as `YYYY-MM-DD`; `undefined` when it is not
 * a day of the calendar (`20261131`).
 */
export function parseDay(value: string): string | undefined {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value.trim());
  if (match === null) return undefined;
  const [, year, month, day] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const iso = `${year}-${month}-${day}`;
  return date.toISOString().slice(0, 10) === iso ? iso : undefined;
}

/**
 * The formatter of days in `timeZone` (an IANA name; the machine's when `undefined`).
 * @throws RangeError when `timeZone` is not a time zone.
 */
export function dayFormat(timeZone?: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
}

/** The day (`YYYY-MM-DD`) of an ISO time in `format`'s time zone. */
export function localDay(iso: string, format: Intl.DateTimeFormat = dayFormat()): string | undefined {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? undefined : format.format(time);
}
