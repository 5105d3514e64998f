import { DatabaseReader, HttpError, parseRecoveriesQuery } from '@loopguard/server';
import type { Command } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { formatTable } from '../formatTable.js';
import { openDatabaseFile } from './openDatabaseFile.js';

interface RecoveriesOptions {
  db: string;
  topic?: string;
  task?: string;
  since?: string;
  until?: string;
  limit?: string;
  cursor?: string;
  json?: boolean;
}

/**
 * `loopguard recoveries --db <file> [--topic] [--task] [--since] [--until] [--limit] [--json]`:
 * the recovery context entries, newest first (the seed's SQL, filtered and paged).
 * @example loopguard recoveries --db .loopguard/state.db --topic loop_escalation --since 2025-10-18
 */
export function registerRecoveriesCommand(program: Command, io: CliIo): void {
  program
    .command('recoveries')
    .description('List recovery context entries (force_next, unblock_authority, escalate), newest first.')
    .requiredOption('--db <file>', 'the loopguard SQLite file')
    .option('--topic <topic>', 'only loop_recovery, unblock_authority or loop_escalation')
    .option('--task <id>', 'only entries about this task')
    .option('--since <time>', 'only entries at or after this time (epoch ms or ISO date)')
    .option('--until <time>', 'only entries before this time (epoch ms or ISO date)')
    .option('--limit <n>', 'entries per page (1..1000)', '20')
    .option('--cursor <cursor>', 'the nextCursor of the previous page')
    .option('--json', 'print the page as JSON (the /recoveries body)')
    .action((options: RecoveriesOptions) => {
      const params = new URLSearchParams();
      for (const name of ['topic', 'task', 'since', 'until', 'limit', 'cursor'] as const) {
        const value = options[name];
        if (value !== undefined) params.set(name, value);
      }
      let query: ReturnType<typeof parseRecoveriesQuery>;
      try {
        query = parseRecoveriesQuery(params);
      } catch (error) {
        // The server's messages start with the parameter's name: the flag of the same name.
        if (error instanceof HttpError) throw new CliError(`--${error.message}`);
        throw error;
      }
      const database = openDatabaseFile(options.db, io);
      try {
        const page = new DatabaseReader({ database }).recoveryPage(query);
        if (options.json) {
          io.stdout(`${JSON.stringify(page, null, 2)}\n`);
          return;
        }
        const rows = page.recoveries.map((r) => [
          r.id,
          new Date(r.timestamp).toISOString(),
          r.action,
          r.taskId ?? '-',
          r.loopType ?? '-',
          String(r.attemptCount ?? '-'),
          r.content.split('\n')[0] ?? '',
        ]);
        io.stdout(
          `${formatTable(['id', 'time', 'action', 'task', 'loop type', 'attempts', 'content'], rows)}\n`,
        );
        if (page.nextCursor !== null)
          io.stdout(`\nmore: loopguard recoveries --db ${options.db} --cursor ${page.nextCursor}\n`);
      } finally {
        database.close();
      }
    });
}
