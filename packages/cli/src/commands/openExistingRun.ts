import { existsSync } from 'node:fs';
import type { RunLock, RunRecord } from '@loopguard/sqlite';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { lockRepository } from '../run/liveRun.js';
import { openState, type RunState, stateFile } from '../run/stateStore.js';

/**
 * Takes the repository's lock, then opens `.loopguard/state.db` in the current directory and reads
 * one run (`resume` and `reset`). The lock comes first: while a run is live here, the command hears
 * of that run, whatever id it names. The caller releases the lock (or hands it to the resumed run)
 * and closes the state.
 * @throws CliError (exit 2) when a run is live here, when there is no state file, or no such run.
 */
export function openExistingRun(
  io: CliIo,
  runId: string,
): { state: RunState; run: RunRecord; lock: RunLock } {
  if (!existsSync(stateFile(io.cwd))) throw new CliError(`no runs here: ${stateFile(io.cwd)} does not exist`);
  const lock = lockRepository(io.cwd);
  try {
    const state = openState(io.cwd, (message) => io.stderr(`loopguard: warning: ${message}\n`), 'write');
    if (state === null) throw new CliError(`no runs here: ${stateFile(io.cwd)} does not exist`);
    const run = state.runs.getRun(runId);
    if (run === null) {
      state.db.close();
      throw new CliError(`run ${runId} not found in ${stateFile(io.cwd)} (see loopguard runs)`);
    }
    return { state, run, lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}
