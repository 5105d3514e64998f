import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoopDetector } from '@loopguard/core';
import type { LoopGuardDatabase, RunRecord, SqliteRunStore } from '@loopguard/sqlite';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { EXIT_CODES, type ExitCode } from '../exitCodes.js';
import { runDirectory } from './artifacts.js';
import { RunSession } from './RunSession.js';
import type { RunOptions } from './runOptions.js';

/** The prompt a run saved when it started (for resume when it came from stdin). */
export function savedPrompt(run: RunRecord): string | null {
  const path = join(runDirectory(run.cwd, run.id), 'prompt.md');
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

/** Saves the prompt next to the run's artifacts. */
export function savePrompt(run: RunRecord, prompt: string): void {
  const dir = runDirectory(run.cwd, run.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'prompt.md'), prompt);
}

/**
 * Runs (or resumes) a session with the user's interrupts forwarded: SIGINT and SIGTERM stop the
 * agent's process group, save the state and end with exit code 130.
 */
export async function executeSession(
  io: CliIo,
  run: RunRecord,
  state: { db: LoopGuardDatabase; runs: SqliteRunStore },
  options: RunOptions,
  prompt: string,
): Promise<ExitCode> {
  const loopDetector = new LoopDetector(state.db.stateMachine, { attemptStore: state.db.attemptStore });
  const runs = state.runs;
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await new RunSession({
      io,
      run,
      runs,
      options,
      prompt,
      signal: controller.signal,
      loopDetector,
    }).execute();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Ends the command with the run's exit code: 0 returns, any other code becomes a one-line {@link CliError}. */
export async function endWith(runId: string, code: ExitCode): Promise<void> {
  if (code === EXIT_CODES.ok) return;
  const name = Object.entries(EXIT_CODES).find(([, value]) => value === code)?.[0] ?? 'error';
  throw new CliError(`run ${runId} ended: ${name} (exit code ${code})`, code);
}
