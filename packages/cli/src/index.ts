export { runCli } from './main.js';
export { createProgram } from './program.js';
export { CliError } from './terminal/CliError.js';
export { type CliIo, processIo } from './terminal/cliIo.js';
export { EXIT_CODES, type ExitCode } from './terminal/exitCodes.js';
