import { StagnationBreaker } from '@loopguard/core/breaker';
import type { Command } from 'commander';
import type { CliIo } from '../cliIo.js';
import { openExistingRun } from './openExistingRun.js';

/** Registers `loopguard reset <run id>`. */
export function registerResetCommand(program: Command, io: CliIo): void {
  program
    .command('reset')
    .description("Close a run's breaker by hand (its count of opens is kept); resume it afterwards.")
    .argument('<run-id>', 'the run (see loopguard runs)')
    .action((runId: string) => {
      const { state, run } = openExistingRun(io, runId);
      try {
        const breaker = new StagnationBreaker({
          runId,
          snapshot: run.breaker,
          cooldownMs: Number(run.options.cooldown ?? 0),
        });
        const before = breaker.state;
        breaker.on('breakerStateChanged', (t) => state.runs.appendTransition(t));
        breaker.reset('manual reset (loopguard reset)');
        state.runs.updateRun(runId, { breaker: breaker.snapshot(), breakerState: 'CLOSED' });
        io.stdout(
          before === 'CLOSED'
            ? `run ${runId}: breaker was already CLOSED; counters cleared\n`
            : `run ${runId}: breaker ${before} -> CLOSED (opened ${breaker.opens} time(s) so far)\n`,
        );
      } finally {
        state.db.close();
      }
    });
}
