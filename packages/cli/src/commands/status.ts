import { systemClock } from '@loopguard/core';
import { statusSnapshot } from '@loopguard/server';
import { type Command, Option } from 'commander';
import type { CliIo } from '../cliIo.js';
import { formatTable } from '../formatTable.js';
import { openStatusReader, readingFlags, type StatusStoreFlags } from './openStatusReader.js';
import { positiveInteger } from './parsers.js';

const time = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());

/** `  run r2 interrupted, breaker: OPEN` for the newest run; empty without one. */
function runLine(breaker: { state: string; runId?: unknown; runStatus?: unknown } | undefined): string {
  if (breaker === undefined) return '';
  if (typeof breaker.runId !== 'string') return `  breaker: ${breaker.state}`;
  return `  run ${breaker.runId} ${String(breaker.runStatus)}, breaker: ${breaker.state}`;
}

/**
 * `loopguard status (--db <file> | --postgres <url>) [--json] [--limit n] [--cursor c]`: tasks with their attempts in
 * the detector's window and their newest recovery (the `/status` body with `--json`).
 * @example loopguard status --db .loopguard/state.db --json
 */
export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description("Show tasks, attempt counts and loop state from a loopguard database (the seed's status).")
    .option('--db <file>', 'the loopguard SQLite file')
    .option('--postgres <url>', 'a PostgreSQL connection string (a fleet)')
    .option('--schema <name>', "the PostgreSQL schema of loopguard's tables (default: public)")
    .option('--json', 'print the status as JSON (the /status body)')
    .addOption(new Option('--limit <n>', 'tasks per page').argParser(positiveInteger(1000)).default(100))
    .option('--cursor <cursor>', 'the nextCursor of the previous page')
    .addOption(
      new Option('--window <ms>', 'attempt window, ms').argParser(positiveInteger(1e9)).default(3_600_000),
    )
    .action(
      async (
        options: StatusStoreFlags & { json?: boolean; limit: number; cursor?: string; window: number },
      ) => {
        const store = await openStatusReader(options, io);
        try {
          const { reader } = store;
          const [baseline, run] = await Promise.all([reader.metricsBaseline(), reader.latestRun()]);
          const snapshot = await readingFlags(() =>
            statusSnapshot(
              reader,
              { limit: options.limit, cursor: options.cursor },
              {
                clock: systemClock,
                attemptsRecorded: baseline.attempts,
                attemptWindowMs: options.window,
                breaker: run === undefined ? undefined : { ...run },
              },
            ),
          );
          const spend = spendCounts(baseline.recoveries);
          if (options.json) {
            io.stdout(`${JSON.stringify({ ...snapshot, spend }, null, 2)}\n`);
            return;
          }
          io.stdout(
            `running: ${snapshot.running ? 'yes' : 'no'}  attempts recorded: ${snapshot.tickCount}  tasks: ${snapshot.page.total}${runLine(snapshot.breaker)}${spendLine(spend)}\n\n`,
          );
          const rows = snapshot.tasks.map((t) => [
            t.id,
            t.status,
            String(t.attemptCount),
            time(t.lastAttempt),
            t.lastRecovery ?? '-',
          ]);
          io.stdout(
            `${formatTable(['task', 'status', 'attempts', 'last attempt', 'last recovery'], rows)}\n`,
          );
          if (snapshot.page.nextCursor !== null)
            io.stdout(`\nmore: loopguard status ${store.label} --cursor ${snapshot.page.nextCursor}\n`);
        } finally {
          await store.close();
        }
      },
    );
}

/** The spend guard's entries in the store: warnings and stops (`spend_warning`, `spend_stop`). */
function spendCounts(recoveries: readonly { topic: string; count: number }[]): {
  warnings: number;
  stops: number;
} {
  const count = (topic: string) =>
    recoveries.filter((r) => r.topic === topic).reduce((n, r) => n + r.count, 0);
  return { warnings: count('spend_warning'), stops: count('spend_stop') };
}

/** `  spend: 1 warning, 1 stop` when the spend guard has spoken, else nothing. */
function spendLine({ warnings, stops }: { warnings: number; stops: number }): string {
  if (warnings + stops === 0) return '';
  return `  spend: ${warnings} warning${warnings === 1 ? '' : 's'}, ${stops} stop${stops === 1 ? '' : 's'} (loopguard recoveries --topic spend_stop)`;
}
