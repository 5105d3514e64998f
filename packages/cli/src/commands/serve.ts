import { type Command, Option } from 'commander';
import type { CliIo } from '../cliIo.js';
import { openDatabaseFile } from './openDatabaseFile.js';
import { parsePort } from './parsers.js';
import { serveDashboard, untilSignal } from './serveDashboard.js';

/**
 * `loopguard serve --db <file> [--port 7070] [--host 127.0.0.1] [--token t]`: the status server
 * and dashboard over a database another process writes, until SIGINT or SIGTERM.
 * @example loopguard serve --db .loopguard/state.db --port 7070
 */
export function registerServeCommand(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('Serve /status, /recoveries, /metrics, /events and the dashboard for a loopguard database.')
    .requiredOption('--db <file>', 'the loopguard SQLite file (read-only)')
    .addOption(new Option('--port <port>', 'TCP port (0: any free port)').argParser(parsePort).default(7070))
    .option('--host <host>', 'address to listen on (anything but loopback needs --token)', '127.0.0.1')
    .addOption(new Option('--token <token>', 'bearer token required on every request').env('LOOPGUARD_TOKEN'))
    .action(async (options: { db: string; port: number; host: string; token?: string }) => {
      const database = openDatabaseFile(options.db, io);
      try {
        const server = await serveDashboard({
          database,
          port: options.port,
          host: options.host,
          ...(options.token === undefined ? {} : { token: options.token }),
        });
        const entry = options.token === undefined ? server.url : `${server.url}?token=<token>`;
        io.stdout(`loopguard dashboard: ${entry} (Ctrl-C to stop)\n`);
        await untilSignal();
        await server.close();
      } finally {
        database.close();
      }
    });
}
