import { execa } from 'execa';

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
  /** Kill the agent's process group after this many ms. */
  timeoutMs: number;
  /** Grace period between SIGTERM and SIGKILL. @default 2000 */
  killGraceMs?: number;
  /** Receives the agent's output as it comes. */
  onStdout?: (chunk: string) => void;
  /** Receives the agent's stderr as it comes. */
  onStderr?: (chunk: string) => void;
  /** Aborting it stops the agent (forwarding the user's interrupt to its process group). */
  signal?: AbortSignal;
  /** Aborting it stops the agent's process group without counting as a user interrupt (a step-level stop). */
  stop?: AbortSignal;
  /** Output kept in memory per stream. @default 1 MiB */
  keepBytes?: number;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/**
 * Runs the agent command once in its own process group: streams its output, kills the whole group
 * at the timeout (SIGTERM, then SIGKILL after a grace period) or when `signal` aborts, and kills
 * whatever is left of the group when the agent exits, so no orphan survives an iteration.
 * @example const result = await runAgent(['claude', '-p'], { cwd, input: prompt, timeoutMs: 600_000 });
 */
export async function runAgent(command: readonly string[], options: RunAgentOptions): Promise<AgentResult> {
  const [file, ...args] = command;
  if (file === undefined) throw new Error('runAgent: empty command');
  const keep = options.keepBytes ?? 1 << 20;
  const started = performance.now();
  const child = execa(file, args, {
    cwd: options.cwd,
    input: options.input,
    detached: true,
    reject: false,
    buffer: false,
    stripFinalNewline: false,
  });
  const pid = child.pid;
  let stdout = '';
  let stderr = '';
  let outputBytes = 0;
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    outputBytes += Buffer.byteLength(chunk);
    stdout = (stdout + chunk).slice(-keep);
    options.onStdout?.(chunk);
  });
  child.stderr?.on('data', (chunk: string) => {
    outputBytes += Buffer.byteLength(chunk);
    stderr = (stderr + chunk).slice(-keep);
    options.onStderr?.(chunk);
  });
  let timedOut = false;
  let interrupted = false;
  const grace = options.killGraceMs ?? 2000;
  let forceTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    forceTimer ??= setTimeout(() => killGroup(pid, 'SIGKILL'), grace);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = () => {
    interrupted = true;
    stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  let stopped = false;
  const onStop = () => {
    stopped = true;
    stop();
  };
  options.stop?.addEventListener('abort', onStop, { once: true });
  const result = await child;
  clearTimeout(timer);
  clearTimeout(forceTimer);
  options.signal?.removeEventListener('abort', onAbort);
  options.stop?.removeEventListener('abort', onStop);
  if (pid !== undefined) killGroup(pid, 'SIGKILL'); // background children left behind
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut,
    interrupted,
    stopped,
    output:
      stderr.length > 0 ? `${stdout}${stdout.endsWith('\n') || stdout === '' ? '' : '\n'}${stderr}` : stdout,
    outputBytes,
    stdout,
    durationMs: performance.now() - started,
  };
}
