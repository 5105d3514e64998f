import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Absolute path of a fixture script. */
export function fixture(name: string): string {
  return join(here, 'fixtures', name);
}

/** Fails clearly when the package has not been built (fixtures import `dist`). */
export function assertBuilt(): void {
  const dist = join(here, '..', 'dist', 'index.js');
  if (!existsSync(dist))
    throw new Error(`${dist} is missing: run \`npx tsc -b packages/sqlite\` before the tests`);
}

/** A fresh temporary directory, and a function that removes it. */
export function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-sqlite-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a fixture to completion and returns its stdout lines; throws with stderr when it fails. */
export function runFixture(
  name: string,
  args: readonly string[],
  options: { uid?: number; gid?: number } = {},
) {
  const result = spawnSync(process.execPath, [fixture(name), ...args], { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    throw new Error(`${name} exited with ${result.status ?? result.signal}: ${result.stderr}`);
  }
  return result.stdout.split('\n').filter((line) => line.length > 0);
}

/** Starts a fixture; stdout lines are delivered to `onLine`. */
export function startFixture(
  name: string,
  args: readonly string[],
  onLine: (line: string) => void,
): {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<{ code: number | null; signal: string | null }>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [fixture(name), ...args], { stdio: 'pipe' });
  let pending = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, exited, stderr: () => stderr };
}
