import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/** Where a silent logger writes: nowhere (no stdout stream, so no flush at exit for each logger made). */
const NOWHERE = { write: () => {} };

/** A pino logger that writes nothing: the default wherever a logger is optional. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' }, NOWHERE);
}
