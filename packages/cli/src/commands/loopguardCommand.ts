import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookAgent } from '../hook/hookEvent.js';
import {
  builtFile,
  plainHookCommand,
  shellQuote,
  snapshotHookCommand,
  usableHookSnapshot,
  withoutExtraCaCerts,
} from '../hook/snapshotCommand.js';

/**
 * This loopguard: this node and the `loopguard` command it was started as (the one
 * `scripts/install.sh` links, which stays valid across re-installs), else this package's `bin.js`.
 */
export function loopguardArgv(): [node: string, bin: string] {
  const started = process.argv[1];
  const bin =
    started !== undefined && basename(started) === 'loopguard'
      ? started
      : join(dirname(fileURLToPath(import.meta.url)), '..', 'bin.js');
  return [process.execPath, bin];
}

/** The shell command that runs this loopguard ({@link loopguardArgv}), quoted. */
export function defaultHookCommand(): string {
  return loopguardArgv().map(shellQuote).join(' ');
}

/**
 * The hook command `init` writes: `--command`'s, else this loopguard's, started from the hook's
 * startup snapshot when this node loads it (see {@link snapshotHookCommand}).
 */
export function hookCommandOf(agent: HookAgent, command: string | undefined): string {
  if (command !== undefined) return `${command} hook ${agent}`;
  const argv = loopguardArgv();
  const blob = usableHookSnapshot(...argv);
  return blob === undefined ? plainHookCommand(argv, agent) : snapshotHookCommand(argv, blob, agent);
}

/**
 * The status-line command `init` writes: `--command`'s, else node running loopguard's bundled
 * status line (`dist/bundle/statusline.cjs`, which runs itself as the main module: no bin.js, no ES
 * module loader, after every reply), else `loopguard statusline` when it was not built; started
 * without `NODE_EXTRA_CA_CERTS` ({@link withoutExtraCaCerts}) and without `NODE_OPTIONS` (trust70:
 * Claude Code hands its status line a settings file's `env`, where `--require` would run code in
 * it, as in a hook call: `plainHookCommand`).
 */
export function statusLineCommandOf(command: string | undefined): string {
  if (command !== undefined) return `${command} statusline`;
  const [node, bin] = loopguardArgv();
  const bundle = builtFile(bin, 'statusline.cjs');
  return `NODE_OPTIONS= ${withoutExtraCaCerts(
    bundle === undefined ? `${defaultHookCommand()} statusline` : `${shellQuote(node)} ${shellQuote(bundle)}`,
  )}`;
}
