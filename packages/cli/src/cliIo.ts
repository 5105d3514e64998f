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
   * Asks a person one question and resolves with the answer line; absent when nobody can answer
   * (standard input is not a terminal). The pause menu of `loopguard run` asks through it.
   */
  ask?: (question: string) => Promise<string>;
}

/** The {@link CliIo} of the running process. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    ...(process.stdin.isTTY === true ? { ask: askOnTerminal } : {}),
  };
}

async function askOnTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}
