import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/** A pino logger that writes nothing: the default wherever a logger is optional. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
