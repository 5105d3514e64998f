import { InvalidArgumentError } from 'commander';

/**
 * Commander argument parser for a TCP port (0..65535).
 * @example new Option('--port <port>').argParser(parsePort)
 */
export function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) throw new InvalidArgumentError('must be an integer from 0 to 65535.');
  return port;
}

/**
 * Commander argument parser for a positive integer up to `max`.
 * @example new Option('--limit <n>').argParser(positiveInteger(1000))
 */
export function positiveInteger(max: number): (value: string) => number {
  return (value) => {
    const n = /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
    if (!(n >= 1 && n <= max)) throw new InvalidArgumentError(`must be an integer from 1 to ${max}.`);
    return n;
  };
}

/**
 * Commander argument parser for one of `values` (a session's verdict: `--verdict stopped`).
 * @example new Option('--verdict <verdict>').argParser(oneOf(SESSION_VERDICTS))
 */
export function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`must be one of ${values.join(', ')}.`);
    return value as T;
  };
}

/**
 * Commander argument parser for an id that cannot be empty (`--session ""` is a usage error, not
 * "no such session") nor start with `-`: `status --session --json` left
 * the id out, and commander would take `--json` as one (polish61). `what` names the id's kind.
 * @example new Option('--session <id>').argParser(idNotOption("the session's id", 'loopguard status'))
 */
export function idNotOption(what: string, lister: string): (value: string) => string {
  return (value) => {
    if (value.trim() === '') throw new InvalidArgumentError(`${what} is empty (${lister} lists the ids).`);
    if (value.startsWith('-'))
      throw new InvalidArgumentError(`${what} is missing: ${value} is an option (${lister} lists the ids).`);
    return value;
  };
}
