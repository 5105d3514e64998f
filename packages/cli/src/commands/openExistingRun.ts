import { existsSync } from 'node:fs';
import type { RunRecord } from '@loopguard/sqlite';
import { lockRepository } from '../run/liveRun.js';
import { openState, type RunState, stateFile } from '../run/stateStore.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';

/**
 * Opens `.loopguard/state.db` in the current directory and reads one run (`resume`, `reset`).
 * @throws CliError (exit 2) when there is no state file or no such run; a run live here is named
 * instead of "not found", whatever id the user gave (docs/cli.md).
 */
export function openExistingRun(io: CliIo, runId: string): { state: RunState; run: RunRecord } {
  if (!existsSync(stateFile(io.cwd))) throw new CliError(`no runs here: ${stateFile(io.cwd)} does not exist`);
  const state = openState(io.cwd, (message) => io.stderr(`loopguard: warning: ${message}\n`), 'write');
  if (state === null) throw new CliError(`no runs here: ${stateFile(io.cwd)} does not exist`);
  const run = state.runs.getRun(runId);
  if (run === null) {
    state.db.close();
    lockRepository(io.cwd).release();
    throw new CliError(`run ${runId} not found in ${stateFile(io.cwd)} (see loopguard runs)`);
  }
  return { state, run };
}
