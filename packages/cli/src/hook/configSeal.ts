import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ResolvedSpendOptions } from '@loopguard/core/spend';
import { sealedBody, sealText } from '@loopguard/core/steps';
import { BUILD_ID } from '../buildId.js';
import { readConfigFileHere } from '../files/configFiles.js';
import { checkOwnStateFile, ownStateFolder } from '../state/stateFolder.js';
import type { HookConfig } from './hookConfig.js';
import { SHA256_SEAL_CHECKSUM, sha256Hex } from './sealChecksum.js';

/** Where the hook keeps the configuration it validated last, in the project's `.loopguard`. */
export const SEALED_CONFIG_FILE = 'config.sealed';

/** The layout's part of {@link CONFIG_SEAL_STAMP}, which every build's stamp starts with. */
const SEAL_LAYOUT = 'c4.';

/**
 * The sealed configuration's layout, bumped with any change to what it holds (`c2`: a refused
 * file's error, sessions55; `c3`: the build; `c4`: {@link SealedConfig.narrows} and
 * {@link SealedConfig.cheaper}, trust53), the build that checked it ({@link BUILD_ID}: another
 * build may check more under the same defaults, trust51), then the hook's lock timeout and the spend
 * guard's warning share, burn minutes and unknown-price rule it was resolved with (core's seal of the
 * detector's options holds the detector's): a configuration another build resolved is validated again. Written out, not
 * read from their modules, so that the status line loads no schema library to read it (its bundle
 * stays small); `guardConfig.test.ts` holds it to those defaults.
 */
export const CONFIG_SEAL_STAMP = `${SEAL_LAYOUT}${BUILD_ID}.3000.0.8.5.warn`;

/** The configuration the hook validated, as the sealed file holds it besides its seal. */
export interface SealedConfig {
  /** The configuration file's name, the SHA-256 of its bytes and its identity here ({@link configKey}). */
  file: string;
  /** The file's `hook.enabled` (`false`: the hooks are off for the project). */
  enabled: boolean;
  /** The file's `hook.lockTimeoutMs`, default applied. */
  lockTimeoutMs: number;
  /** The file's `spend.prices` (model prices over the pricing library's). */
  prices: HookConfig['prices'];
  /** The file's `spend` section, validated; absent: no spend guard. */
  spend?: ResolvedSpendOptions;
  /** The detector's options sealed by core; absent: the defaults. */
  detector?: string;
  /** `true` when the file narrows the guard (`hookSettingsChanges`: exemptions, thresholds), for the status line. */
  narrows?: true;
  /** `true` when `prices` prices a model below the pricing library (`pricesBelowLibrary`), for the status line. */
  cheaper?: true;
}

/** A file the hook refused, as the sealed file holds it: each call fails open on it. */
export interface SealedRefusal {
  /** As {@link SealedConfig.file}. */
  file: string;
  /** Why (`config <file>: hook: "repeatThreshold" Too small: …`). */
  error: string;
}

/** What the sealed file holds besides its seal. */
export type SealedState = SealedConfig | SealedRefusal;

/**
 * The configuration file's bytes and the key its seal is kept under: its name, the SHA-256 of its
 * bytes and the file's device, inode and change time (`readConfigFileHere`): a sealed file that came
 * with the project (an archive, a copy) was sealed for another file (trust48).
 * @throws as `readConfigFileHere` (not a regular file, larger than 64 KiB, unreadable).
 */
export function configKey(file: string): { bytes: Buffer; key: string } {
  const { bytes, identity } = readConfigFileHere(file);
  return { bytes, key: `${basename(file)}:${sha256Hex(bytes)}:${identity}` };
}

/** `.loopguard/config.sealed`; `undefined` when the folder is missing, a symbolic link or another user's. */
export function sealedPathOf(projectDir: string): string | undefined {
  try {
    const folder = ownStateFolder(projectDir, false);
    return folder === undefined ? undefined : join(folder, SEALED_CONFIG_FILE);
  } catch {
    return undefined; // refused: the database open reports it
  }
}

/**
 * The stamp a sealed file names when it is of this layout ({@link SEAL_LAYOUT}), whichever build
 * wrote it: what the status line reads, as the hooks that run kept it (review56).
 */
function stampOfLayout(text: string): string | undefined {
  const head = '{"seal":"';
  const end = text.indexOf(' ', head.length);
  const stamp = text.startsWith(head) && end !== -1 ? text.slice(head.length, end) : undefined;
  return stamp?.startsWith(SEAL_LAYOUT) ? stamp : undefined;
}

/**
 * What the file at `path` holds when it is this build's seal, unchanged, of the file `key` names;
 * with `anyBuild`, another build's of this layout too (see {@link sealedVerdict}).
 */
export function readSealedState(path: string, key: string, anyBuild = false): SealedState | undefined {
  let text: string;
  try {
    checkOwnStateFile(path);
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined; // missing, a symbolic link, another user's
  }
  const stamp = anyBuild ? stampOfLayout(text) : CONFIG_SEAL_STAMP;
  const body = stamp === undefined ? undefined : sealedBody(text, stamp, 'state', SHA256_SEAL_CHECKSUM);
  if (body === undefined) return undefined;
  const state = JSON.parse(body) as SealedState;
  return state.file === key ? state : undefined;
}

/** Keeps `state` sealed at `path` (mode 0600, by a rename); a failure keeps nothing (the next call validates). */
export function writeSealedState(path: string, state: SealedState): void {
  const temporary = `${path}.${process.pid}.${Date.now()}`;
  try {
    writeFileSync(
      temporary,
      sealText(JSON.stringify(state), CONFIG_SEAL_STAMP, 'state', SHA256_SEAL_CHECKSUM),
      {
        mode: 0o600,
        flag: 'wx',
      },
    );
    renameSync(temporary, path);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/**
 * What the hook's last validation of `file` (the project's configuration file) said, read without
 * parsing it: `{ error }` when the hooks fail open on it (one that cannot be read, or the error they
 * sealed for these very bytes), `{ enabled, narrows, cheaper }` when they validated these bytes, `undefined` when no
 * hook call has validated them yet. For the status line, which runs after every reply and must not
 * pay the YAML parser each time (docs/benchmarks.md, "The status line and a configuration that
 * fails open"). Read whichever build sealed it: the status line says what the hooks that run did,
 * and those may be another build's (Claude Code's MCP server, started before an upgrade, serves its
 * session's hooks until the session ends, while each status line runs the upgraded build).
 */
export function sealedVerdict(
  projectDir: string,
  file: string,
): { error: string } | Pick<SealedConfig, 'enabled' | 'narrows' | 'cheaper'> | undefined {
  let key: string;
  try {
    key = configKey(file).key;
  } catch (error) {
    return { error: (error as Error).message };
  }
  const path = sealedPathOf(projectDir);
  const state = path === undefined ? undefined : readSealedState(path, key, true);
  if (state === undefined) return undefined;
  if ('error' in state) return { error: state.error };
  const { enabled, narrows, cheaper } = state;
  return { enabled, ...(narrows ? { narrows } : {}), ...(cheaper ? { cheaper } : {}) };
}
