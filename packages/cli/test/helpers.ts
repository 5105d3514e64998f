import type { CliIo } from '../src/terminal/cliIo.js';

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
    // no HOME is the account's home (loopguardHome): its scan cache is not the test's to fill
    env: { NO_COLOR: '1', LOOPGUARD_SCAN_CACHE: 'off' },
    cwd: process.cwd(),
    isTTY: false,
    ...overrides,
    out: () => out,
    err: () => err,
  };
}

/**
 * What `loopguard serve` printed (`http://127.0.0.1:7070/?token=…`) as the server's root and the
 * token as a request's `Authorization` header.
 */
export function dashboardAccess(printed: string): { url: string; auth: { headers: Record<string, string> } } {
  const address = new URL(printed);
  const token = address.searchParams.get('token') ?? '';
  return { url: `${address.origin}/`, auth: { headers: { authorization: `Bearer ${token}` } } };
}
