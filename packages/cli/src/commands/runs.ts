import { resumeHint, runReasonWords, runStatusWords } from '@loopguard/core/internal';
import type { Command } from 'commander';
import { openState } from '../run/stateStore.js';
import type { CliIo } from '../terminal/cliIo.js';
import { localTime, timeZoneName } from '../terminal/localTime.js';
import { printable } from '../terminal/terminalText.js';

/** Registers `loopguard runs`. */
export function registerRunsCommand(program: Command, io: CliIo): void {
  program
    .command('runs')
    .description('List the runs of this directory with their state (newest first).')
    .option('--json', 'one JSON object per run per line')
    .action((flags: { json?: boolean }) => {
      const state = openState(io.cwd, (message) => io.stderr(`loopguard: warning: ${message}\n`), 'read');
      const runs = state?.runs.listRuns() ?? [];
      state?.db.close();
      if (flags.json === true) {
        for (const run of runs) {
          const opens = (run.breaker as { opens?: unknown } | null)?.opens ?? 0;
          io.stdout(
            `${JSON.stringify({ id: run.id, status: run.status, iteration: run.iteration, breaker: run.breakerState, opens, exitCode: run.exitCode, reason: run.reason, command: run.command, startedAt: new Date(run.startedAt).toISOString() })}\n`,
          );
        }
        return;
      }
      if (runs.length === 0) {
        io.stdout('no runs yet\n');
        return;
      }
      const rows = [['RUN', 'STATUS', 'ITER', 'BREAKER', `STARTED (${timeZoneName()})`, 'REASON']];
      for (const run of runs) {
        rows.push([
          run.id,
          runStatusWords(run.status), // `--json` keeps the stored name
          String(run.iteration),
          run.breakerState,
          localTime(run.startedAt),
          reasonWords(run.id, run.status, run.reason),
        ]);
      }
      const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
      for (const row of rows)
        io.stdout(
          `${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}\n`,
        );
    });
}

/**
 * A run's reason in words, as status says it (it may quote the agent: `the agent asked: …`), and
 * how to go on, as `run` said it when it stopped (polish66), unless the reason says it already (a
 * run whose loopguard process is gone).
 */
function reasonWords(id: string, status: string, reason: string | null): string {
  const words = printable(runReasonWords(reason ?? ''));
  return words.includes('loopguard resume') ? words : `${words}${resumeHint(id, status)}`.trim();
}
