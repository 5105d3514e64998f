import { createRequire } from 'node:module';
import { Command } from 'commander';
import { refuseOptionsAsValues } from './commands/parsers.js';
import type { CliIo } from './terminal/cliIo.js';

const packageJson = createRequire(import.meta.url)('../package.json') as { version: string };

type Register = (program: Command, io: CliIo) => void;

/**
 * Each command's module, loaded when the command is registered: a command loads only its own
 * (`scan` does not load the server, the dashboard or SQLite). In the order help lists them.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  run: async () => (await import('./commands/run.js')).registerRunCommand,
  resume: async () => (await import('./commands/resume.js')).registerResumeCommand,
  reset: async () => (await import('./commands/reset.js')).registerResetCommand,
  runs: async () => (await import('./commands/runs.js')).registerRunsCommand,
  demo: async () => (await import('./commands/demo.js')).registerDemoCommand,
  serve: async () => (await import('./commands/serve.js')).registerServeCommand,
  status: async () => (await import('./commands/status.js')).registerStatusCommand,
  recoveries: async () => (await import('./commands/recoveries.js')).registerRecoveriesCommand,
  hook: async () => (await import('./commands/hook.js')).registerHookCommand,
  init: async () => (await import('./commands/init.js')).registerInitCommand,
  mcp: async () => (await import('./commands/mcp.js')).registerMcpCommand,
  uninstall: async () => (await import('./commands/uninstall.js')).registerUninstallCommand,
  scan: async () => (await import('./commands/scan.js')).registerScanCommand,
  statusline: async () => (await import('./commands/statusline.js')).registerStatuslineCommand,
};

/**
 * Builds the `loopguard` command tree. Each command lives in `src/commands/` and registers itself
 * here; commands report failures by throwing a {@link CliError}.
 * @param command - the command about to run (the first argument): only it is loaded when it is one
 *   of loopguard's; otherwise (help, a version, a typo) every command is. @default every command
 * @example
 * await (await createProgram(processIo())).parseAsync(process.argv);
 */
export async function createProgram(io: CliIo, command?: string): Promise<Command> {
  const program = new Command('loopguard')
    .description('Stop autonomous coding agents from looping without progress.')
    .version(packageJson.version, '-v, --version')
    .showHelpAfterError('(run loopguard --help for usage)')
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      // commander puts its "(Did you mean --session?)" on a line of its own: a usage error is one line
      outputError: (text, write) => write(text.replace(/\n\(Did you mean /g, ' (did you mean ')),
    })
    .allowExcessArguments(false)
    .exitOverride();
  const names = command !== undefined && Object.hasOwn(COMMANDS, command) ? [command] : Object.keys(COMMANDS);
  const registers = await Promise.all(names.map((name) => (COMMANDS[name] as () => Promise<Register>)()));
  for (const register of registers) register(program, io);
  // a command's usage error points at its own help (commander copies the program's hint to each)
  for (const sub of program.commands) {
    sub.showHelpAfterError(`(run loopguard ${sub.name()} --help for usage)`);
    refuseOptionsAsValues(sub);
  }
  return program;
}
