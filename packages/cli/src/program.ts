import { createRequire } from 'node:module';
import { Command } from 'commander';
import type { CliIo } from './cliIo.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerHookCommand } from './commands/hook.js';
import { registerInitCommand } from './commands/init.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerRecoveriesCommand } from './commands/recoveries.js';
import { registerResetCommand } from './commands/reset.js';
import { registerResumeCommand } from './commands/resume.js';
import { registerRunCommand } from './commands/run.js';
import { registerRunsCommand } from './commands/runs.js';
import { registerScanCommand } from './commands/scan.js';
import { registerServeCommand } from './commands/serve.js';
import { registerStatusCommand } from './commands/status.js';
import { registerUninstallCommand } from './commands/uninstall.js';

const packageJson = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * Builds the `loopguard` command tree. Each command lives in `src/commands/` and registers itself
 * here; commands report failures by throwing a {@link CliError}.
 * @example
 * await createProgram(processIo()).parseAsync(process.argv);
 */
export function createProgram(io: CliIo): Command {
  const program = new Command('loopguard')
    .description('Stop autonomous coding agents from looping without progress.')
    .version(packageJson.version, '-v, --version')
    .showHelpAfterError('(run loopguard --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .allowExcessArguments(false)
    .exitOverride();
  registerRunCommand(program, io);
  registerResumeCommand(program, io);
  registerResetCommand(program, io);
  registerRunsCommand(program, io);
  registerDemoCommand(program, io);
  registerServeCommand(program, io);
  registerStatusCommand(program, io);
  registerRecoveriesCommand(program, io);
  registerHookCommand(program, io);
  registerInitCommand(program, io);
  registerMcpCommand(program, io);
  registerUninstallCommand(program, io);
  registerScanCommand(program, io);
  return program;
}
