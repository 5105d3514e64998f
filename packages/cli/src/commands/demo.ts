import { DEFAULT_STATUS_PORT } from '@loopguard/server';
import { type Command, Option } from 'commander';
import { runDemo } from '../demo/runDemo.js';
import type { CliIo } from '../terminal/cliIo.js';
import { parsePort, positiveInteger } from './parsers.js';

/**
 * `loopguard demo [--db file] [--serve] [--port 7070] [--pace ms]`: the scripted autopilot through
 * every loop type and a guard trip (see `runDemo`).
 * @example loopguard demo --serve
 */
export function registerDemoCommand(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('Run a scripted autopilot into every loop type and a guard trip, on a fresh SQLite file.')
    .option('--db <file>', 'the SQLite file to (re)create', '.loopguard/demo.db')
    .option('--serve', 'serve the dashboard during the demo and keep it up afterwards')
    .addOption(
      new Option('--port <port>', 'dashboard port with --serve')
        .argParser(parsePort)
        .default(DEFAULT_STATUS_PORT),
    )
    .addOption(
      new Option('--pace <ms>', 'wait this long after each attempt (to watch the dashboard)')
        .argParser(positiveInteger(60_000))
        .default(0),
    )
    .action(async (options: { db: string; serve?: boolean; port: number; pace: number }) => {
      await runDemo(
        { db: options.db, serve: options.serve === true, port: options.port, paceMs: options.pace },
        io,
      );
    });
}
