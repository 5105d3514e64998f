import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookSessionRecord } from '../src/index.js';

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
  options: { uid?: number; gid?: number; cwd?: string; fixturePath?: string } = {},
) {
  const { fixturePath, ...spawnOptions } = options;
  const result = spawnSync(process.execPath, [fixturePath ?? fixture(name), ...args], {
    encoding: 'utf8',
    ...spawnOptions,
  });
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

/** The directory of package `name` as seen from `fromDir` (Node's lookup: `node_modules` upwards). */
function packageDir(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`cannot find package ${name} from ${fromDir}`);
  }
}

/** Makes every directory and file under `path` readable (and directories enterable) by anyone. */
function openUp(path: string): void {
  const stat = statSync(path);
  chmodSync(path, stat.mode | (stat.isDirectory() ? 0o555 : 0o444));
  if (stat.isDirectory()) for (const entry of readdirSync(path)) openUp(join(path, entry));
}

/**
 * A copy of this package's fixtures, its `dist`, and every package they load, in a temporary
 * directory any user can read: a fixture run as another user (to test file permissions as root)
 * must not depend on where the checkout lives (root's home is mode 700). Remove it with `remove()`.
 */
export function portableFixtures(): { fixture(name: string): string; dir: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'loopguard-fixtures-'));
  const pkgRoot = join(here, '..');
  const copyPackage = (from: string, to: string, onlyDist: boolean) => {
    mkdirSync(to, { recursive: true });
    if (onlyDist) {
      cpSync(join(from, 'package.json'), join(to, 'package.json'));
      cpSync(join(from, 'dist'), join(to, 'dist'), { recursive: true, dereference: true });
    } else {
      cpSync(from, to, {
        recursive: true,
        dereference: true,
        filter: (source) => !source.slice(from.length).includes('node_modules'),
      });
    }
  };
  const app = join(root, 'app');
  copyPackage(pkgRoot, app, true);
  cpSync(join(here, 'fixtures'), join(app, 'test', 'fixtures'), { recursive: true });
  // every dependency, flat under root/node_modules (Node finds them walking up from app/)
  const copied = new Set<string>();
  const queue: Array<{ from: string; deps: Record<string, string> }> = [];
  const depsOf = (dir: string) =>
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies ?? {}) as Record<
      string,
      string
    >;
  queue.push({ from: pkgRoot, deps: depsOf(pkgRoot) });
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
    for (const name of Object.keys(item.deps)) {
      if (copied.has(name)) continue;
      copied.add(name);
      const source = packageDir(name, item.from);
      copyPackage(source, join(root, 'node_modules', name), name.startsWith('@loopguard/'));
      queue.push({ from: source, deps: depsOf(source) });
    }
  }
  openUp(root);
  return {
    dir: root,
    fixture: (name) => join(app, 'test', 'fixtures', name),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A hook session's state after one tool call ran (two steps), nothing found: what a store writes first. */
export const ONE_CALL_SESSION: Omit<HookSessionRecord, 'createdAt' | 'updatedAt'> = {
  snapshot: '{}',
  lastResults: '[]',
  steps: 2,
  toolCalls: 1,
  parentSessionId: null,
  agentType: null,
  nudges: 0,
  stops: 0,
  enabled: true,
};
