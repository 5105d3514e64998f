import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/** Where a silent logger writes: nowhere (no stdout stream, so no flush at exit for each logger made). */
const NOWHERE = { write: () => {} };

let shared: Logger | undefined;

/**
 * A pino logger that writes nothing: the default wherever a logger is optional. One is shared by
 * every caller (making one costs ≈ 60 µs, as much as judging a few tool calls): a level set
 * on it, or a child made from it, still writes nowhere.
 */
export function silentLogger(): Logger {
  shared ??= pino({ level: 'silent' }, NOWHERE);
  return shared;
}
