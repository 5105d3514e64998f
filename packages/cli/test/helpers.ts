import type { CliIo } from '../src/cliIo.js';

/** A {@link CliIo} that collects what a command writes. */
export function bufferedIo(overrides: Partial<CliIo> = {}): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    env: { NO_COLOR: '1' },
    cwd: process.cwd(),
    isTTY: false,
    ...overrides,
    out: () => out,
    err: () => err,
  };
}
