import { type Command, InvalidArgumentError } from 'commander';

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

/**
 * Makes each option of `command` that takes a value refuse one of the command's own options, or
 * `--`, as that value (after the option's own parser, whose message comes first): commander takes
 * the next word whatever it is, so `demo --db --port 8080` made a database named `--port` and
 * `run --task -- claude` a task named `--` (polish66). A value that merely starts with `-` (a
 * token, a path) is still taken.
 * @example refuseOptionsAsValues(program.commands[0])
 */
export function refuseOptionsAsValues(command: Command): void {
  const flags = new Set(['--', '-h', '--help']);
  for (const option of command.options)
    for (const flag of [option.short, option.long]) if (flag) flags.add(flag);
  for (const option of command.options.filter((o) => o.required)) {
    const own = option.parseArg;
    option.parseArg = <T>(value: string, previous: T): T => {
      const parsed = own ? own(value, previous) : value;
      if (flags.has(value.split('=')[0] as string))
        throw new InvalidArgumentError(
          `its value is missing: ${value} is ${value === '--' ? 'the end of the options' : 'an option'}.`,
        );
      return parsed as T;
    };
  }
}
