import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoopDetector } from '@loopguard/core';
import { runLimitWords } from '@loopguard/core/internal';
import type { RunLock, RunRecord } from '@loopguard/sqlite';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES, type ExitCode } from '../terminal/exitCodes.js';
import { runDirectory } from './artifacts.js';
import { becomeLiveRun } from './liveRun.js';
import { RunSession } from './RunSession.js';
import type { RunOptions } from './runOptions.js';
import { SpaceReserve } from './spaceReserve.js';
import { isStorageFault, type RunState, stateFile, storageCauseOf, storageCodeOf } from './stateStore.js';

/** The prompt a run saved when it started (for resume when it came from stdin). */
export function savedPrompt(run: RunRecord): string | null {
  const path = join(runDirectory(run.cwd, run.id), 'prompt.md');
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

/**
 * Saves the prompt where the run's artifacts go. Called before the run is recorded, so that a run
 * that exists always has its prompt, even if loopguard is killed in between.
 */
export function savePrompt(cwd: string, runId: string, prompt: string): void {
  const dir = runDirectory(cwd, runId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'prompt.md'), prompt);
}

/**
 * Runs (or resumes) a session as the repository's live run (`lock` held): its agents are tagged
 * and ended on exit, even if loopguard is killed (the watchdog); SIGINT and SIGTERM stop the agent,
 * save the state and end with exit code 130. A storage failure mid-run (disk full, I/O error) ends
 * the run `failed` with its reason (space is freed from the reserve file first) and exit code 1.
 */
export async function executeSession(
  io: CliIo,
  run: RunRecord,
  state: RunState,
  options: RunOptions,
  prompt: string,
  lock: RunLock,
): Promise<ExitCode> {
  const loopDetector = new LoopDetector(state.db.stateMachine, { attemptStore: state.db.attemptStore });
  const runs = state.runs;
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const live = becomeLiveRun(lock, run);
  const reserve = new SpaceReserve(join(run.cwd, '.loopguard', 'reserve'));
  try {
    return await new RunSession({
      io,
      run,
      runs,
      options,
      prompt,
      signal: controller.signal,
      loopDetector,
      agentToken: live.token,
      onAgentStart: (pid) => live.agentStarted(pid),
      recordEntry: (entry) => state.db.stateMachine.addContextEntry(entry),
    }).execute();
  } catch (error) {
    if (!isStorageFault(error)) throw error;
    reserve.free();
    const what = storageCodeOf(error) === 'ENOSPC' ? join(run.cwd, '.loopguard') : stateFile(run.cwd);
    const reason = `cannot write ${what}: ${storageCauseOf(error)}`;
    let recorded = true;
    try {
      runs.updateRun(run.id, { status: 'failed', reason, exitCode: EXIT_CODES.internalError });
    } catch {
      recorded = false;
    }
    throw new CliError(
      `run ${run.id} failed: ${reason}${recorded ? '' : ' (not recorded: loopguard runs shows it interrupted)'}`,
      EXIT_CODES.internalError,
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    live.end();
    reserve.free();
  }
}

/** How a run ended, in the words its last line says beside the exit code (`run … ended: paused (exit code 3)`). */
const ENDINGS: Partial<Record<ExitCode, string>> = {
  [EXIT_CODES.paused]: 'paused',
  [EXIT_CODES.aborted]: 'aborted',
  [EXIT_CODES.spendStopped]: 'stopped by the spend guard',
  [EXIT_CODES.interrupted]: 'interrupted',
};

/**
 * Ends the command with the run's exit code: 0 returns, any other code becomes a one-line
 * {@link CliError}; a run that reached its iterations or time says which, from its stored `reason`
 * (`reached its iteration limit of 10`, as `status` says it).
 */
export async function endWith(runId: string, code: ExitCode, reason: string | null = null): Promise<void> {
  if (code === EXIT_CODES.ok) return;
  const ending = code === EXIT_CODES.budgetSpent ? `reached ${runLimitWords(reason)}` : ENDINGS[code];
  throw new CliError(`run ${runId} ended: ${ending ?? 'error'} (exit code ${code})`, code);
}
