import { spawn } from 'node:child_process';
import { AGENT_TOKEN_VARIABLE, signalGroup, signalTagged } from './processTree.js';

/** How one run of the agent command ended. */
export interface AgentResult {
  /** The exit code; `null` when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended it, if any. */
  signal: string | null;
  /** Whether loopguard killed it at the iteration timeout. */
  timedOut: boolean;
  /** Whether loopguard stopped it because the user interrupted (SIGINT/SIGTERM). */
  interrupted: boolean;
  /** Whether loopguard stopped it through `stop` (the step-level detector). */
  stopped: boolean;
  /** stdout then stderr, each truncated to the last `keepBytes`. */
  output: string;
  /** Bytes the agent wrote (stdout + stderr). */
  outputBytes: number;
  /** The agent's stdout (last `keepBytes`), for structured results. */
  stdout: string;
  /** Wall-clock duration, ms. */
  durationMs: number;
}

/** Options of {@link runAgent}. */
export interface RunAgentOptions {
  /** Working directory. */
  cwd: string;
  /** Written to the agent's stdin (the prompt). */
  input: string;
  /** End the agent's whole tree after this many ms. */
  timeoutMs: number;
  /**
   * Tags the agent's environment (`LOOPGUARD_AGENT_TOKEN`) so that its whole tree, daemons included,
   * is found and ended; without it only the process group is.
   * @default undefined (the process group alone)
   */
  token?: string;
  /** Called with the agent's pid (its process group id) once it started. @default undefined (not called) */
  onStart?: (pid: number) => void;
  /** Grace period between SIGTERM and SIGKILL. @default 2000 */
  killGraceMs?: number;
  /** How long output may still arrive after the agent exited and its tree was ended. @default 500 */
  drainMs?: number;
  /** Receives the agent's output as it comes. @default undefined (kept only, up to `keepBytes`) */
  onStdout?: (chunk: string) => void;
  /** Receives the agent's stderr as it comes. @default undefined (kept only, up to `keepBytes`) */
  onStderr?: (chunk: string) => void;
  /** Aborting it stops the agent (forwarding the user's interrupt to its process group). @default undefined */
  signal?: AbortSignal;
  /**
   * Aborting it stops the agent's process group without counting as a user interrupt (the stream
   * watcher's stop: a loop or a budget). @default undefined
   */
  stop?: AbortSignal;
  /** Output kept in memory per stream. @default 1 MiB */
  keepBytes?: number;
}

/**
 * Runs the agent command once in its own process group, its environment tagged with `token`:
 * streams its output; at the timeout, or when `signal` or `stop` aborts, sends SIGTERM then (after
 * a grace period) SIGKILL to the group and to every tagged process; when the agent exits, kills
 * whatever it left running (daemons that called `setsid` included). Output held open by a process
 * that escaped is not waited for beyond `drainMs`, so an iteration never hangs past its timeout.
 * @example const result = await runAgent(['claude', '-p'], { cwd, input: prompt, timeoutMs: 600_000, token });
 */
export function runAgent(command: readonly string[], options: RunAgentOptions): Promise<AgentResult> {
  const [file, ...args] = command;
  if (file === undefined) throw new Error('runAgent: empty command');
  const keep = options.keepBytes ?? 1 << 20;
  const grace = options.killGraceMs ?? 2000;
  const token = options.token;
  const started = performance.now();
  const env = token === undefined ? process.env : { ...process.env, [AGENT_TOKEN_VARIABLE]: token };
  const child = spawn(file, args, { cwd: options.cwd, detached: true, stdio: 'pipe', env });
  const pid = child.pid;
  if (pid !== undefined) options.onStart?.(pid);
  let stdout = '';
  let stderr = '';
  let outputBytes = 0;
  child.stdin.on('error', () => {}); // an agent that does not read its prompt
  child.stdin.end(options.input);
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    outputBytes += Buffer.byteLength(chunk);
    stdout = (stdout + chunk).slice(-keep);
    options.onStdout?.(chunk);
  });
  child.stderr.on('data', (chunk: string) => {
    outputBytes += Buffer.byteLength(chunk);
    stderr = (stderr + chunk).slice(-keep);
    options.onStderr?.(chunk);
  });
  const killTree = (signal: NodeJS.Signals) => {
    if (pid !== undefined) signalGroup(pid, signal);
    if (token !== undefined) signalTagged(token, signal);
  };
  let timedOut = false;
  let interrupted = false;
  let stopped = false;
  let forceTimer: NodeJS.Timeout | undefined;
  const end = () => {
    killTree('SIGTERM');
    forceTimer ??= setTimeout(() => killTree('SIGKILL'), grace);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    end();
  }, options.timeoutMs);
  const onAbort = () => {
    interrupted = true;
    end();
  };
  const onStop = () => {
    stopped = true;
    end();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  options.stop?.addEventListener('abort', onStop, { once: true });
  if (options.signal?.aborted) onAbort();

  return new Promise((resolve) => {
    let exit: { code: number | null; signal: string | null } | null = null;
    let open = 2;
    const finish = () => {
      if (exit === null) return;
      clearTimeout(timer);
      clearTimeout(forceTimer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      options.stop?.removeEventListener('abort', onStop);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        interrupted,
        stopped,
        output:
          stderr.length > 0
            ? `${stdout}${stdout.endsWith('\n') || stdout === '' ? '' : '\n'}${stderr}`
            : stdout,
        outputBytes,
        stdout,
        durationMs: performance.now() - started,
      });
      exit = null;
    };
    let drainTimer: NodeJS.Timeout | undefined;
    const closed = () => {
      open -= 1;
      if (open === 0) finish();
    };
    child.stdout.on('close', closed);
    child.stderr.on('close', closed);
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
      exit = { code: 127, signal: null };
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killTree('SIGKILL'); // whatever the agent left running: background jobs, setsid daemons
      if (open === 0) finish();
      else drainTimer = setTimeout(finish, options.drainMs ?? 500);
    });
  });
}
