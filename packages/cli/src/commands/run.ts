import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { EXIT_CODES } from '../exitCodes.js';
import { readConfigFile, resolveRunOptions } from '../run/runOptions.js';
import { endWith, executeSession, savePrompt } from '../run/startRun.js';
import { openState } from '../run/stateStore.js';

/** A new run id: `YYYYMMDD-HHMMSS-xxxx` (UTC, sortable, unique per directory). */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Registers `loopguard run [options] -- <command…>`. */
export function registerRunCommand(program: Command, io: CliIo): void {
  program
    .command('run')
    .description('Run an agent command again and again, guarded by the stagnation breaker and the guards.')
    .argument(
      '<command...>',
      'the agent command and its arguments (after --); {model} is replaced by the current model',
    )
    .option(
      '--prompt-file <path>',
      'the prompt given to the agent on stdin each iteration (default: read stdin once)',
    )
    .option('--max-iterations <n>', 'iterations allowed, 1..50 (default: 10)')
    .option('--max-runtime <duration>', 'how long the run may last, at most 60m (default: 60m)')
    .option('--iteration-timeout <duration>', "kill the agent's process group after this long (default: 30m)")
    .option(
      '--stagnation-threshold <n>',
      'iterations without file changes (or unverified completion claims) that open the breaker (default: 3)',
    )
    .option(
      '--same-error-threshold <n>',
      'the same normalised error in a row that opens the breaker (default: 5)',
    )
    .option('--task-threshold <n>', 'iterations the same task may stay in progress (default: 5)')
    .option(
      '--max-consecutive-failures <n>',
      'agent runs failing in a row (exit code ≠ 0, infrastructure excluded) that open the breaker (default: 3)',
    )
    .option(
      '--cooldown <duration>',
      'how long an OPEN breaker waits before trial iterations (HALF_OPEN); 0 = at once (default: 30m)',
    )
    .option('--auto-reset', 'after the cooldown close the breaker instead of HALF_OPEN')
    .addOption(
      new Option('--on-stagnation <action>', 'what to do when the breaker opens (default: pause)').choices([
        'pause',
        'alert',
        'abort',
        'escalate',
      ]),
    )
    .option(
      '--completion-promise <text>',
      'the text by which the agent claims completion (default: <promise>COMPLETE</promise>)',
    )
    .option(
      '--evidence-command <command>',
      'shell command that must succeed for a completion claim to count (e.g. "npm test")',
    )
    .option(
      '--require-file <path>',
      'a file that must exist for a completion claim to count (repeatable)',
      collect,
    )
    .option('--task <id>', 'the task the run works on')
    .option('--plan <path>', 'markdown plan file: the current task is the first unchecked "- [ ]" item')
    .option(
      '--model-progression <models>',
      'models to escalate through, comma-separated (e.g. haiku,sonnet,opus)',
    )
    .option('--webhook <url>', 'POST a JSON alert here when the breaker opens')
    .option('--max-calls-per-hour <n>', 'at most this many agent runs per hour (waits otherwise)')
    .option(
      '--backoff <duration>',
      'first wait after an infrastructure error (rate limit, 5xx), doubling (default: 30s)',
    )
    .addOption(
      new Option(
        '--agent-stream <format>',
        "read the agent's stdout live as steps (claude: claude -p --output-format stream-json --verbose; jsonl: one step per line); the step-level detector nudges the next prompt or stops the iteration mid-run",
      ).choices(['claude', 'jsonl']),
    )
    .option('--json', 'one JSON event per line on stdout instead of the human display')
    .option(
      '--config <path>',
      'configuration file (default: loopguard.config.json, .yaml or .yml in the current directory)',
    )
    .action(async (command: string[], flags: Record<string, unknown>) => {
      const { config, ...rest } = flags;
      const file = readConfigFile(io.cwd, config as string | undefined);
      const options = resolveRunOptions(file.values, rest, file.path);
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
        prompt = await readStdin();
      } else {
        throw new CliError('no prompt: give --prompt-file PATH or pipe the prompt on stdin');
      }
      const state = openState(io.cwd, (message) => io.stderr(`loopguard: warning: ${message}\n`));
      if (state === null) throw new CliError('cannot open the state file', EXIT_CODES.internalError);
      try {
        const run = state.runs.createRun({ id: newRunId(), command, options: { ...options }, cwd: io.cwd });
        savePrompt(run, prompt);
        await endWith(run.id, await executeSession(io, run, state, options, prompt));
      } finally {
        state.db.close();
      }
    });
}
