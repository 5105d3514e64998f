import { StagnationBreaker } from '@loopguard/core/breaker';
import type { RunRecord } from '@loopguard/sqlite';
import type { Command } from 'commander';
import { lockRepository } from '../run/liveRun.js';
import type { RunState } from '../run/stateStore.js';
import type { CliIo } from '../terminal/cliIo.js';
import { openExistingRun } from './openExistingRun.js';

/** Registers `loopguard reset <run id>`. */
export function registerResetCommand(program: Command, io: CliIo): void {
  program
    .command('reset')
    .description(
      "Close a run's breaker by hand (its count of opens is kept); resume it afterwards. Refused while a run is live here.",
    )
    .argument('<run-id>', 'the run (see loopguard runs)')
    .action((runId: string) => {
      const { state, run } = openExistingRun(io, runId);
      try {
        // a live run's own breaker would overwrite the reset, or the reset would undo its decision
        const lock = lockRepository(io.cwd);
        try {
          // read again under the lock: the run may have moved on since
          resetBreaker(io, state, state.runs.getRun(runId) ?? run);
        } finally {
          lock.release();
        }
      } finally {
        state.db.close();
      }
    });
}

/** Closes the breaker of `run` and records the transition (the caller holds the run lock). */
function resetBreaker(io: CliIo, state: RunState, run: RunRecord): void {
  const runId = run.id;
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
}
