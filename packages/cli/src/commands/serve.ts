import { randomBytes } from 'node:crypto';
import { DEFAULT_STATUS_PORT, isLoopback } from '@loopguard/server';
import { type Command, Option } from 'commander';
import type { CliIo } from '../terminal/cliIo.js';
import { DB_FLAG_HELP, openStatusReader, type StatusStoreFlags } from './openStatusReader.js';
import { parsePort } from './parsers.js';
import { serveDashboard, untilSignal } from './serveDashboard.js';

/**
 * What `serve --token <t>` says on stderr: every local user reads a process's arguments (`ps`,
 * `/proc/<pid>/cmdline`), and with the token the dashboard's commands and results (trust52).
 */
export const ARGV_TOKEN_WARNING =
  'loopguard: warning: --token is in the process list (ps), where every local user can read it and open the dashboard; give it in LOOPGUARD_TOKEN, or let serve make one\n';

/**
 * `loopguard serve (--db <file> | --postgres <url>) [--port 7070] [--host 127.0.0.1] [--token t]`:
 * the status server and dashboard over a store other processes write, until SIGINT or SIGTERM.
 * Without `--token` it makes one (on loopback too: any local user can connect to 127.0.0.1, and
 * the store holds the sessions' commands and results) and prints the address with it.
 * @example loopguard serve --db .loopguard/state.db --port 7070
 */
export function registerServeCommand(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description(
      'Serve /status, /recoveries, /metrics, /events and the dashboard for a loopguard SQLite file or PostgreSQL fleet.',
    )
    .option('--db <file>', `${DB_FLAG_HELP}, read only`)
    .option('--postgres <url>', "a PostgreSQL connection string: the fleet's shared store (read only)")
    .option('--schema <name>', "the PostgreSQL schema of loopguard's tables (default: public)")
    .option('--config <path>', 'configuration file whose serve: section may give postgres and schema')
    .addOption(
      new Option('--port <port>', 'TCP port (0: any free port)')
        .argParser(parsePort)
        .default(DEFAULT_STATUS_PORT),
    )
    .option('--host <host>', 'address to listen on (anything but loopback needs --token)', '127.0.0.1')
    .addOption(
      new Option(
        '--token <token>',
        'bearer token required on every request (on loopback, default: a new one, printed in the address)',
      ).env('LOOPGUARD_TOKEN'),
    )
    .action(
      async (
        options: StatusStoreFlags & { port: number; host: string; token?: string },
        command: Command,
      ) => {
        // an empty one is refused below, in one line
        if (command.getOptionValueSource('token') === 'cli' && options.token !== '')
          io.stderr(ARGV_TOKEN_WARNING);
        const store = await openStatusReader(options, io);
        try {
          // a public address needs a token the user chose (startStatusServer refuses it without one)
          const made = options.token === undefined && isLoopback(options.host);
          const token = made ? randomBytes(24).toString('base64url') : options.token;
          const server = await serveDashboard({
            reader: store.reader,
            hooksOff: store.hooksOff, // the project's off switch, read anew as the page refreshes
            hooksConfigured: store.hooksConfigured, // and what it changes in the guard (trust52)
            pricesBelowLibrary: store.pricesBelowLibrary, // and its prices below the library's (trust54)
            port: options.port,
            host: options.host,
            ...(token === undefined ? {} : { token }),
          });
          // a token the user chose is theirs to type; the one made here is shown once, on their terminal
          const entry = `${server.url}?token=${made ? token : '<token>'}`;
          // one write: a reader of the address gets the note with it
          const beside =
            store.projectDatabase === undefined
              ? ''
              : `this project's hook sessions are not in this store: loopguard serve --db ${store.projectDatabase}\n`;
          io.stdout(`loopguard dashboard: ${entry} (reading ${store.source}; Ctrl-C to stop)\n${beside}`);
          await untilSignal();
          await server.close();
        } finally {
          await store.close();
        }
      },
    );
}
