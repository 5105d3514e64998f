import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { projectCheaperPrices } from '../hook/projectHookSettings.js';
import { lockRepository } from '../run/liveRun.js';
import { plainWebhookWarning } from '../run/notify.js';
import { refuseRepositoryChoices } from '../run/repositoryChoices.js';
import { addRunOptions, readConfigFile, resolveRunOptions } from '../run/runOptions.js';
import { endWith, executeSession, savePrompt } from '../run/startRun.js';
import { openState } from '../run/stateStore.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';

/** A new run id: `YYYYMMDD-HHMMSS-xxxx` (UTC, sortable, unique per directory). */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** What `run` says when the prompt it read from stdin is empty (or only blanks). */
const EMPTY_PROMPT_WARNING =
  "loopguard: warning: stdin held no prompt: the agent's stdin gets nothing each iteration (pipe the prompt, or give --prompt-file PATH; ignore this when the command carries its own)\n";

/** How long `run` waits for the prompt's first byte on a stdin pipe: Claude Code's 3 s (`-p`). */
const FIRST_BYTE_WAIT_MS = 3000;

/** What `run` says when stdin is a pipe that brought nothing in {@link FIRST_BYTE_WAIT_MS}. */
const OPEN_PIPE_WARNING =
  "loopguard: warning: no prompt on stdin after 3 s (a pipe nobody closed): the run goes on without one, the agent's stdin gets nothing each iteration (pipe the prompt, or give --prompt-file PATH; < /dev/null when the command carries its own)\n";

/**
 * The prompt on stdin, to its end; `undefined` when nothing came in {@link FIRST_BYTE_WAIT_MS}
 * (sessions60: a CI step, an editor's task or another agent's tool call leaves stdin an open pipe
 * that never ends, and `run` waited for it forever, without a word). Once a byte came, the prompt is
 * read whole however slowly it comes.
 */
function readStdin(): Promise<string | undefined> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const waiting = setTimeout(() => {
      stdin.off('data', onData).off('end', onEnd).off('error', reject);
      stdin.destroy();
      resolve(undefined);
    }, FIRST_BYTE_WAIT_MS);
    const onData = (chunk: Buffer) => {
      clearTimeout(waiting);
      chunks.push(chunk);
    };
    const onEnd = () => {
      clearTimeout(waiting);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    stdin.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/**
 * What `run --webhook <url>` says on stderr: every local user reads a process's arguments (`ps`,
 * `/proc/<pid>/cmdline`) for the whole run, and a webhook's URL may hold its key (Slack's path), as
 * `serve --token` says of its token (polish61).
 */
const WEBHOOK_IN_PS_WARNING =
  "loopguard: warning: --webhook is in the process list (ps), where every local user can read its URL (a webhook's URL may hold its key); give it as webhook: in a configuration file only you can read (--config PATH, or an untracked loopguard.config.yaml)\n";

/** Registers `loopguard run [options] -- <command…>`. */
export function registerRunCommand(program: Command, io: CliIo): void {
  const command = program
    .command('run')
    .description('Run an agent command again and again, guarded by the stagnation breaker and the guards.')
    .argument(
      '<command...>',
      'the agent command and its arguments (after --); {model} is replaced by the current model',
    );
  addRunOptions(command).action(async (command: string[], flags: Record<string, unknown>) => {
    const { config, ...rest } = flags;
    const file = readConfigFile(io.cwd, config as string | undefined);
    // a repository's file chooses nothing that runs a command, sends a file or posts an alert
    // (trust52, trust54) unless the user names it too
    if (config === undefined && file.path !== null)
      refuseRepositoryChoices({ path: file.path, values: file.values }, rest, io.cwd);
    const options = resolveRunOptions(file.values, rest, file.path);
    if (rest.webhook !== undefined) io.stderr(WEBHOOK_IN_PS_WARNING);
    const plain = options.webhook === undefined ? undefined : plainWebhookWarning(options.webhook);
    if (plain !== undefined) io.stderr(plain);
    // a found file's prices below the library's lower the user's budget in dollars: said, as status
    // and init say it (trust54)
    if (config === undefined && rest.spend === undefined && file.path !== null) {
      const cheaper = projectCheaperPrices(dirname(file.path));
      if (cheaper !== undefined) io.stderr(`loopguard: warning: ${cheaper}\n`);
    }
    // not an error: an agent may write its plan in its first iteration; a mistyped name is said
    if (options.plan !== undefined && !existsSync(resolve(io.cwd, options.plan)))
      io.stderr(
        `loopguard: warning: --plan ${options.plan}: no such file (yet): the run has no task until it exists\n`,
      );
    let prompt: string;
    if (options.promptFile !== undefined) {
      try {
        prompt = readFileSync(resolve(io.cwd, options.promptFile), 'utf8');
      } catch (error) {
        throw new CliError(
          `--prompt-file ${options.promptFile}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
    } else if (process.stdin.isTTY !== true) {
      const read = await readStdin();
      prompt = read ?? '';
      // not an error: a command may carry its own prompt (`claude -p "…"` from a script or CI)
      if (read === undefined) io.stderr(OPEN_PIPE_WARNING);
      else if (prompt.trim() === '') io.stderr(EMPTY_PROMPT_WARNING);
    } else {
      throw new CliError('no prompt: give --prompt-file PATH or pipe the prompt on stdin');
    }
    const state = openState(io.cwd, (message) => io.stderr(`loopguard: warning: ${message}\n`), 'write');
    if (state === null) throw new CliError('cannot open the state file', EXIT_CODES.internalError);
    try {
      const lock = lockRepository(io.cwd);
      const id = newRunId();
      savePrompt(io.cwd, id, prompt);
      const run = state.runs.createRun({ id, command, options: { ...options }, cwd: io.cwd });
      const code = await executeSession(io, run, state, options, prompt, lock);
      await endWith(run.id, code, state.runs.getRun(run.id)?.reason ?? null);
    } finally {
      state.db.close();
    }
  });
}
