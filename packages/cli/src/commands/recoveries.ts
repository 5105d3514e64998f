import { InvalidInputError } from '@loopguard/core';
import { actionWords, type RecoveryView } from '@loopguard/core/internal';
import { MAX_PAGE_LIMIT, parseRecoveriesQuery } from '@loopguard/server';
import { type Command, Option } from 'commander';
import { shellQuote } from '../hook/snapshotCommand.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { formatTable } from '../terminal/formatTable.js';
import { localDayStart, localTime, timeZoneName } from '../terminal/localTime.js';
import { entryCall } from './entryCall.js';
import { DB_FLAG_HELP, openStatusReader, readingFlags, type StatusStoreFlags } from './openStatusReader.js';
import { idNotOption } from './parsers.js';

interface RecoveriesOptions extends StatusStoreFlags {
  topic?: string;
  task?: string;
  since?: string;
  until?: string;
  limit?: string;
  cursor?: string;
  json?: boolean;
}

/** The entries a terminal's page shows without `--limit` (the /recoveries endpoint's page is longer). */
const RECOVERIES_SHOWN = 20;

/**
 * What a row says of where its loop stood: a task's attempts (`3`), or the tool call a session's
 * nudge, stop or spend entry fell at (`call 4`, as `status`, the dashboard and `scan` say it).
 */
function attemptsOrCall(entry: RecoveryView): string {
  return entryCall(entry.metadata) ?? String(entry.attemptCount ?? '-');
}

/** The times `--since` and `--until` take, as their help and their error line say them. */
const TIME_FORMS =
  'epoch ms, an ISO time (2026-11-29T18:00, local unless it names a zone) or a day (YYYY-MM-DD or YYYYMMDD, local)';

/**
 * The filters and page length of this page, as flags for the next page's command (` --topic
 * loop_stop --limit 5`): the cursor alone would list every topic from there on (qa64).
 */
function kept(options: RecoveriesOptions): string {
  const flags = (['topic', 'task', 'since', 'until', 'limit'] as const).flatMap((name) => {
    const value = options[name];
    if (value === undefined || (name === 'limit' && value === String(RECOVERIES_SHOWN))) return [];
    return [` --${name} ${/^[\w./:@%+=,-]+$/.test(value) ? value : shellQuote(value)}`];
  });
  return flags.join('');
}

/**
 * `loopguard recoveries (--db <file> | --postgres <url>) [--topic] [--task] [--since] [--until] [--limit] [--json]`:
 * the recovery context entries and the sessions' nudges and stops (`loop_nudge`, `loop_stop`), newest first
 * (filtered and paged).
 * @example loopguard recoveries --db .loopguard/state.db --topic loop_escalation --since 2025-10-18
 */
export function registerRecoveriesCommand(program: Command, io: CliIo): void {
  program
    .command('recoveries')
    .description(
      'List recovery context entries (force_next, unblock_authority, escalate) and the nudges, stops and spend entries of agent sessions, newest first.',
    )
    .option('--db <file>', DB_FLAG_HELP)
    .option('--postgres <url>', 'a PostgreSQL connection string (a fleet)')
    .option('--schema <name>', "the PostgreSQL schema of loopguard's tables (default: public)")
    .option(
      '--topic <topic>',
      'only loop_recovery, unblock_authority, loop_escalation, loop_nudge, loop_stop, spend_warning, spend_stop or call_refused',
    )
    .addOption(
      new Option('--task <id>', 'only entries about this task').argParser(
        idNotOption("the task's id", 'loopguard status'),
      ),
    )
    .option('--since <time>', `only entries at or after this time (${TIME_FORMS})`)
    .option('--until <time>', `only entries before this time (${TIME_FORMS}; a day is included)`)
    .addOption(
      new Option('--limit <n>', `entries per page (1..${MAX_PAGE_LIMIT})`).default(
        String(RECOVERIES_SHOWN),
        String(RECOVERIES_SHOWN),
      ),
    )
    .option('--cursor <cursor>', 'the nextCursor of the previous page')
    .option('--json', 'print the page as JSON (the /recoveries body)')
    .action(async (options: RecoveriesOptions) => {
      const params = new URLSearchParams();
      for (const name of ['topic', 'task', 'since', 'until', 'limit', 'cursor'] as const) {
        const value = options[name];
        // a day alone is the user's, as the table's times (the endpoint's ISO reading is UTC's)
        const day =
          name === 'since' || name === 'until' ? value && localDayStart(value, name === 'until') : undefined;
        if (value !== undefined) params.set(name, day === undefined ? value : String(day));
      }
      let query: ReturnType<typeof parseRecoveriesQuery>;
      try {
        query = parseRecoveriesQuery(params);
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        // a time the endpoint refused: the forms this command takes, a day among them (polish61)
        const time = (['since', 'until'] as const).find((name) => error.message.startsWith(`${name} `));
        if (time !== undefined)
          throw new CliError(`--${time} must be ${TIME_FORMS}, got ${JSON.stringify(options[time])}`);
        // The parser's messages start with the parameter's name: the flag of the same name.
        throw new CliError(`--${error.message}`);
      }
      const store = await openStatusReader(options, io);
      try {
        const page = await readingFlags(() => store.reader.recoveryPage(query));
        if (options.json) {
          io.stdout(`${JSON.stringify(page, null, 2)}\n`);
          return;
        }
        const rows = page.recoveries.map((r) => [
          r.id,
          localTime(r.timestamp),
          actionWords(r.topic), // as the dashboard's badges and `status --session` say it
          r.taskId ?? '-',
          r.loopTypeText ?? '-', // in words, as status, the dashboard and scan say it (`--json`: the code)
          attemptsOrCall(r),
          r.content.split('\n')[0] ?? '',
        ]);
        io.stdout(
          `database: ${store.source}\n${formatTable(['id', `time (${timeZoneName()})`, 'action', 'task or session', 'loop type', 'attempts or call', 'content'], rows)}\n`,
        );
        if (page.nextCursor !== null)
          io.stdout(
            `\nmore: loopguard recoveries ${store.label}${kept(options)} --cursor ${page.nextCursor}\n`,
          );
      } finally {
        await store.close();
      }
    });
}
