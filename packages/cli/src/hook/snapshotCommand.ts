import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Node's exit code when it cannot load a startup snapshot (the blob is gone, or another Node or
 * other V8 flags built it); the snapshot entry's when it is run for anything but a hook call
 * (hookSnapshot.ts). A blob that is not a snapshot at all makes Node abort instead.
 */
export const SNAPSHOT_UNUSABLE_EXIT = 14;

/**
 * A file the build put in `dist/bundle/` beside `bin` (the symlink `install.sh` makes followed),
 * or `undefined` when it is not there (a clone not built, a `bin` that cannot be resolved).
 * @example builtFile('/usr/local/bin/loopguard', 'statusline.cjs'); // '/…/dist/bundle/statusline.cjs'
 */
export function builtFile(bin: string, name: string): string | undefined {
  let file: string;
  try {
    file = join(dirname(realpathSync(bin)), 'bundle', name);
  } catch {
    return undefined;
  }
  return existsSync(file) ? file : undefined;
}

/**
 * The hook's startup snapshot beside `bin` (`dist/bundle/hook.blob`, the symlink `install.sh`
 * makes followed) when `node` loads it, else `undefined`. Asked once, by `init`: the blob answers
 * `hook --snapshot-check` only when this node built it.
 * @param node - the node the hook command runs.
 * @param bin - the `loopguard` command (or a clone's `bin.js`) the hook command runs.
 */
export function usableHookSnapshot(node: string, bin: string): string | undefined {
  const blob = builtFile(bin, 'hook.blob');
  if (blob === undefined) return undefined;
  const check = spawnSync(node, ['--snapshot-blob', blob, bin, 'hook', '--snapshot-check'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 10_000,
  });
  return check.status === 0 && check.stdout === 'ok' ? blob : undefined;
}

/**
 * `command` (a shell command that starts node, quoted) started without `NODE_EXTRA_CA_CERTS`, as
 * every command `init` writes for loopguard (the hook calls and the status line). Neither makes a
 * TLS connection, and Node 20 reads that file and builds its whole root certificate store at every
 * start where it is set: ≈ 37 ms of CPU with a system bundle of 144 certificates, more than the
 * rest of a hook call on a 2,000-step session (docs/benchmarks.md, issue 37 §3, fifth round).
 * @example withoutExtraCaCerts("'/usr/bin/node' '/opt/loopguard/statusline.cjs'")
 */
export function withoutExtraCaCerts(command: string): string {
  return `NODE_EXTRA_CA_CERTS= ${command}`;
}

/**
 * The shell command of a hook call without the startup snapshot (`node bin hook <agent>`), started
 * without `NODE_EXTRA_CA_CERTS` ({@link withoutExtraCaCerts}) and without `NODE_OPTIONS`: the
 * agents hand their hooks a settings file's `env`, where `--import=data:…` would run code before
 * loopguard's, answering for it (redteam68); a hook call needs none of the user's node options.
 * @param argv - the node and the `loopguard` command, unquoted.
 * @param agent - `claude`, `gemini` or `codex`.
 * @example plainHookCommand(['/usr/bin/node', '/usr/local/bin/loopguard'], 'claude')
 */
export function plainHookCommand(argv: [node: string, bin: string], agent: string): string {
  const [node, bin] = argv.map(shellQuote) as [string, string];
  return `NODE_OPTIONS= ${withoutExtraCaCerts(`${node} ${bin} hook ${agent}`)}`;
}

/**
 * The shell command of a hook call that starts from the snapshot `blob`, and starts without it
 * when that fails: a blob removed, corrupt or left by another node version slows the hook down,
 * never breaks it. Node fails that way before anything reads the event; a hook call itself exits 0
 * (but for an agent it does not know, `hook cursor`: exit 1 before reading anything, which the
 * second start says again; `init` writes no such command), and were it to fail after reading the
 * event, the second start would read an empty or cut event and fail open like any unreadable event
 * (it never answers anything). The snapshot
 * starts without the user's `NODE_OPTIONS`: V8 refuses a snapshot under other V8 flags (a
 * `--max-old-space-size` set for other tools), and a hook call needs none of them; so does the
 * second start ({@link plainHookCommand}: code they load would answer for loopguard). Both starts go
 * without `NODE_EXTRA_CA_CERTS` ({@link plainHookCommand}).
 * @param argv - the node and the `loopguard` command, unquoted.
 * @param agent - `claude` or `gemini`.
 * @example snapshotHookCommand(['/usr/bin/node', '/usr/local/bin/loopguard'], '/…/hook.blob', 'claude')
 */
export function snapshotHookCommand(argv: [node: string, bin: string], blob: string, agent: string): string {
  const [node, bin] = argv.map(shellQuote) as [string, string];
  const snapshot = withoutExtraCaCerts(`${node} --snapshot-blob ${shellQuote(blob)} ${bin} hook ${agent}`);
  return `NODE_OPTIONS= ${snapshot} || NODE_OPTIONS= ${withoutExtraCaCerts(`exec ${node} ${bin} hook ${agent}`)}`;
}

/** `text` quoted for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
