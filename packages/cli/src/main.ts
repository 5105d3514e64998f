import { CommanderError } from 'commander';
import { createProgram } from './program.js';
import { CliError } from './terminal/CliError.js';
import type { CliIo } from './terminal/cliIo.js';
import { EXIT_CODES } from './terminal/exitCodes.js';
import { withinColumns } from './terminal/wrapText.js';

/**
 * Runs the `loopguard` command with `args` (without `node` and the script) and returns its exit
 * code. Errors become one line on stderr and a documented exit code, never a stack trace.
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), processIo());
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const program = await createProgram(io, args[0]);
  // `help <typo>`: commander would print the whole help as its error; said as an unknown command is
  const asked = args[0] === 'help' ? args[1] : undefined;
  if (
    asked !== undefined &&
    !program.commands.some((c) => c.name() === asked || c.aliases().includes(asked))
  ) {
    io.stderr(`error: unknown command '${asked}'\n(run loopguard --help for usage)\n`);
    return EXIT_CODES.usage;
  }
  try {
    await program.parseAsync([...args], { from: 'user' });
    return EXIT_CODES.ok;
  } catch (error) {
    return exitCodeOf(error, io);
  }
}

function exitCodeOf(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (help, version or a usage error).
    return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
  }
  if (error instanceof CliError) {
    io.stderr(errorLines(`loopguard: ${error.message}`, io));
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`loopguard: internal error: ${message}\n`);
  if (io.env.LOOPGUARD_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return EXIT_CODES.internalError;
}

/**
 * An error's text for stderr: on a terminal of known width, within it ({@link withinColumns}:
 * `status --session`'s sentence after exit 10 ran past 80 columns, sess70); to a pipe or a file,
 * as it is.
 */
function errorLines(text: string, io: CliIo): string {
  return `${io.stderrIsTTY === true && io.columns !== undefined ? withinColumns(text, io.columns) : text}\n`;
}
