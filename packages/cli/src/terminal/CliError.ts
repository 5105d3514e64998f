import { EXIT_CODES, type ExitCode } from './exitCodes.js';

/**
 * An error the CLI reports as one line on stderr (no stack trace) before exiting with `exitCode`.
 * @example
 * throw new CliError(`--db: ${path} is not a SQLite database`, EXIT_CODES.usage);
 */
export class CliError extends Error {
  /** The process exit code for this error. @default EXIT_CODES.usage */
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode = EXIT_CODES.usage, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
