import type { Command } from 'commander';
import { endLeftoverAgent, lockRepository } from '../run/liveRun.js';
import { resolveRunOptions } from '../run/runOptions.js';
import { endWith, executeSession, savedPrompt } from '../run/startRun.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { openExistingRun } from './openExistingRun.js';

/** Registers `loopguard resume <run id>`. */
export function registerResumeCommand(program: Command, io: CliIo): void {
  program
    .command('resume')
    .description(
      'Continue a paused, aborted, interrupted or crashed run at its next iteration, with its breaker state.',
    )
    .argument('<run-id>', 'the run (see loopguard runs)')
    .option('--json', 'one JSON event per line on stdout instead of the human display')
    .action(async (runId: string, flags: { json?: boolean }) => {
      const { state, run } = openExistingRun(io, runId);
      try {
        if (run.status === 'completed')
          throw new CliError(`run ${runId} already completed; start a new one with loopguard run`);
        const options = resolveRunOptions(
          run.options,
          flags.json === undefined ? {} : { json: flags.json },
          null,
        );
        const prompt = savedPrompt(run);
        if (prompt === null) throw new CliError(`run ${runId}: its saved prompt (prompt.md) is missing`);
        const lock = lockRepository(io.cwd);
        if (run.status === 'interrupted') {
          const leftover = await endLeftoverAgent(run);
          if (leftover !== null) io.stderr(`[loopguard] ${leftover}\n`);
        }
        const code = await executeSession(io, run, state, options, prompt, lock);
        await endWith(run.id, code, state.runs.getRun(run.id)?.reason ?? null);
      } finally {
        state.db.close();
      }
    });
}
