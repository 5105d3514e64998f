import { createInterface } from 'node:readline/promises';

/**
 * Where a command reads and writes: the process by default, buffers in tests.
 * @example
 * const io: CliIo = { ...processIo(), env: { ...process.env, NO_COLOR: '1' } };
 */
export interface CliIo {
  /** Writes to standard output. */
  stdout: (text: string) => void;
  /** Writes to standard error. */
  stderr: (text: string) => void;
  /** The environment variables the command sees. @default process.env */
  env: NodeJS.ProcessEnv;
  /** The directory relative paths resolve against. @default process.cwd() */
  cwd: string;
  /** Whether standard output is a terminal (live status line, colours). @default process.stdout.isTTY */
  isTTY: boolean;
  /** Whether standard error is a terminal (progress bars). @default process.stderr.isTTY */
  stderrIsTTY?: boolean;
  /**
   * The terminal's width in columns when standard output is one; absent otherwise (a pipe, a file:
   * nothing is laid out for a width). @default process.stdout.columns on a terminal
   */
  columns?: number;
  /**
   * Asks a person one question and resolves with the answer line; absent when nobody can answer
   * (standard input is not a terminal). The pause menu of `loopguard run` asks through it.
   */
  ask?: (question: string) => Promise<string>;
}

/**
 * The {@link CliIo} of the running process. A reader that goes away before the output ends
 * (`loopguard status | head -3`) ends it quietly: the rest is dropped, the command keeps its exit
 * code (qa45; node would otherwise die of the unhandled `EPIPE` with a stack trace).
 */
export function processIo(): CliIo {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listenerCount('error') === 0) stream.on('error', dropWhenReaderGone);
  }
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    ...(process.stdout.isTTY === true && process.stdout.columns > 0
      ? { columns: process.stdout.columns }
      : {}),
    ...(process.stdin.isTTY === true ? { ask: askOnTerminal } : {}),
  };
}

/** A write error other than the reader gone (`EPIPE`, then writes to the closed stream) is thrown as before. */
function dropWhenReaderGone(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
}

async function askOnTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}
