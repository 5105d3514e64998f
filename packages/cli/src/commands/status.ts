import { systemClock } from '@loopguard/core';
import { DatabaseReader, statusSnapshot } from '@loopguard/server';
import { type Command, Option } from 'commander';
import type { CliIo } from '../cliIo.js';
import { formatTable } from '../formatTable.js';
import { openDatabaseFile } from './openDatabaseFile.js';
import { positiveInteger } from './parsers.js';

const time = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());

/**
 * `loopguard status --db <file> [--json] [--limit n] [--cursor c]`: tasks with their attempts in
 * the detector's window and their newest recovery (the `/status` body with `--json`).
 * @example loopguard status --db .loopguard/state.db --json
 */
export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description("Show tasks, attempt counts and loop state from a loopguard database (the seed's status).")
    .requiredOption('--db <file>', 'the loopguard SQLite file')
    .option('--json', 'print the status as JSON (the /status body)')
    .addOption(new Option('--limit <n>', 'tasks per page').argParser(positiveInteger(1000)).default(100))
    .option('--cursor <cursor>', 'the nextCursor of the previous page')
    .addOption(
      new Option('--window <ms>', 'attempt window, ms').argParser(positiveInteger(1e9)).default(3_600_000),
    )
    .action((options: { db: string; json?: boolean; limit: number; cursor?: string; window: number }) => {
      const database = openDatabaseFile(options.db, io);
      try {
        const reader = new DatabaseReader({ database, attemptWindowMs: options.window });
        const snapshot = statusSnapshot(
          reader,
          { limit: options.limit, cursor: options.cursor },
          { clock: systemClock, attemptsRecorded: reader.countAttempts(), breaker: reader.latestBreaker() },
        );
        if (options.json) {
          io.stdout(`${JSON.stringify(snapshot, null, 2)}\n`);
          return;
        }
        io.stdout(
          `running: ${snapshot.running ? 'yes' : 'no'}  attempts recorded: ${snapshot.tickCount}  tasks: ${snapshot.page.total}${snapshot.breaker ? `  breaker: ${snapshot.breaker.state}` : ''}\n\n`,
        );
        const rows = snapshot.tasks.map((t) => [
          t.id,
          t.status,
          String(t.attemptCount),
          time(t.lastAttempt),
          t.lastRecovery ?? '-',
        ]);
        io.stdout(`${formatTable(['task', 'status', 'attempts', 'last attempt', 'last recovery'], rows)}\n`);
        if (snapshot.page.nextCursor !== null)
          io.stdout(`\nmore: loopguard status --db ${options.db} --cursor ${snapshot.page.nextCursor}\n`);
      } finally {
        database.close();
      }
    });
}
