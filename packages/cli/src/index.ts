export { CliError } from './CliError.js';
export { type CliIo, processIo } from './cliIo.js';
export { EXIT_CODES, type ExitCode } from './exitCodes.js';
export { runCli } from './main.js';
export { createProgram } from './program.js';
