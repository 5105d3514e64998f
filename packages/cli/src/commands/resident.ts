import { appendFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { processHookIo } from '../hook/runHook.js';
import { ResidentServer } from '../resident/ResidentServer.js';
import { residentRequest } from '../resident/residentClient.js';
import {
  type ResidentConfig,
  readResidentConfig,
  residentHome,
  residentLogFile,
} from '../resident/residentConfig.js';
import { startResident } from '../resident/startResident.js';

/**
 * `loopguard resident serve|start|stop`: the user's resident process for Claude Code's `http`
 * hooks (installed by `loopguard init claude --resident`, see docs/hooks.md).
 * @example loopguard resident stop
 */
export function registerResidentCommand(program: Command, io: CliIo): void {
  const resident = program
    .command('resident')
    .description(
      "The resident process that answers Claude Code's http hooks (loopguard init claude --resident).",
    );
  resident
    .command('serve')
    .description('Run the resident process in the foreground (what `start` runs in the background).')
    .action(async () => {
      const home = residentHome(io.env);
      const config = configOf(home);
      const log = (line: string) => {
        try {
          appendFileSync(residentLogFile(home), `${new Date().toISOString()} ${line}\n`);
        } catch {
          // no log: the server still answers
        }
      };
      const server = new ResidentServer({ config, log });
      try {
        await server.start();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new CliError(
            `127.0.0.1:${config.port} is in use: a resident process already runs, or another program`,
          );
        throw error;
      }
      const stop = () => void server.stop('signalled');
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      await server.closed;
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    });
  resident
    .command('start')
    .description(
      "Claude Code's SessionStart hook: start the resident process if needed and register the session.",
    )
    .action(async () => {
      await startResident({ ...processHookIo(), env: io.env, cwd: io.cwd }, residentHome(io.env));
    });
  resident
    .command('stop')
    .description('Stop the running resident process (sessions go on unguarded until their next start).')
    .action(async () => {
      const config = configOf(residentHome(io.env));
      try {
        await residentRequest(config, 'POST', '/stop');
        io.stdout(`loopguard: stopped the resident process on 127.0.0.1:${config.port}\n`);
      } catch {
        io.stdout(`loopguard: no resident process answers on 127.0.0.1:${config.port}\n`);
      }
    });
}

function configOf(home: string): ResidentConfig {
  const config = readResidentConfig(home);
  if (config === undefined)
    throw new CliError(
      'no resident configuration (~/.loopguard/resident.json): run loopguard init claude --resident',
    );
  return config;
}
