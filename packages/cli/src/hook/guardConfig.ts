import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  DEFAULT_BURN_MINUTES,
  DEFAULT_ON_UNKNOWN_PRICE,
  DEFAULT_SPEND_WARN_AT,
  type ResolvedSpendOptions,
} from '@loopguard/core/spend';
import {
  type StepLoopDetectorOptions,
  sealedBody,
  sealStepLoopDetectorOptions,
  sealText,
  unsealStepLoopDetectorOptions,
} from '@loopguard/core/steps';
import { BUILD_ID } from '../buildId.js';
import { findConfigFile, readConfigFileHere } from '../configFiles.js';
import { checkOwnStateFile, ownStateFolder } from '../stateFolder.js';
import {
  DEFAULT_HOOK_CONFIG,
  DEFAULT_HOOK_LOCK_TIMEOUT_MS,
  type HookConfig,
  hookSectionError,
  parseHookConfig,
} from './hookConfig.js';
import { noopLogger } from './noopLogger.js';
import { DEFAULT_DETECTOR_OPTIONS, quietDetectorOptions } from './quietDetectorOptions.js';
import { SHA256_SEAL_CHECKSUM, sha256Hex } from './sealChecksum.js';

/** The configuration of a project without a configuration file, the detector's options ready. */
const DEFAULT_GUARD_CONFIG: Readonly<HookConfig> = Object.freeze({
  ...DEFAULT_HOOK_CONFIG,
  detector: DEFAULT_DETECTOR_OPTIONS,
});

/** Where the hook keeps the configuration it validated last, in the project's `.loopguard`. */
export const SEALED_CONFIG_FILE = 'config.sealed';

/**
 * The sealed configuration's layout, bumped with any change to what it holds, the build that
 * checked it ({@link BUILD_ID}: another build may check more, under the same defaults: trust51), and
 * the hook's and the spend guard's defaults it was resolved with (core's seal of the detector's
 * options holds theirs): a configuration another build resolved is validated again.
 */
const STAMP = `c2.${BUILD_ID}.${DEFAULT_HOOK_LOCK_TIMEOUT_MS}.${DEFAULT_SPEND_WARN_AT}.${DEFAULT_BURN_MINUTES}.${DEFAULT_ON_UNKNOWN_PRICE}`;

/** What the sealed file holds besides its seal. */
interface SealedState {
  /** The configuration file's name, the SHA-256 of its bytes and its identity here (`readConfigFileHere`). */
  file: string;
  enabled: boolean;
  lockTimeoutMs: number;
  prices: HookConfig['prices'];
  spend?: ResolvedSpendOptions;
  /** The detector's options sealed by core; absent: the defaults. */
  detector?: string;
}

/**
 * The hook's configuration of the project (see {@link readHookConfig}), with the detector's options
 * ready for the detector (validated, the hook's logger in them). A configuration file is validated
 * when its text changed since the hook last validated it: its validated, resolved configuration is
 * kept in `.loopguard/config.sealed` (written with its final mode, 0600, by a rename), sealed like the
 * detector's snapshot (a SHA-256 over what it holds, with this build's layout, id (`BUILD_ID`) and defaults) and keyed
 * by the file's name, the SHA-256 of its bytes and the file's device, inode and change time; a call
 * whose file is that file with those bytes and whose sealed file verifies takes it without zod (a
 * sealed file unpacked or copied with the project names another file, and is not taken). Anything else (no or another sealed file, a row changed or
 * planted without its seal, a symbolic link or another user's file, another build's) is validated as
 * any input, and the sealed file written again. A project without a `.loopguard` folder keeps none
 * (the hook's first database open makes it).
 * @throws Error naming the file and the key when the configuration is invalid (nothing is kept).
 */
export async function readGuardConfig(projectDir: string): Promise<HookConfig> {
  const file = findConfigFile(projectDir);
  if (file === undefined) return DEFAULT_GUARD_CONFIG;
  const { bytes, identity } = readConfigFileHere(file);
  // the file here, not only its bytes: a sealed file that came with the project (an archive, a
  // copy) was sealed for another file, and is validated again (trust48)
  const key = `${basename(file)}:${sha256Hex(bytes)}:${identity}`;
  const sealedPath = sealedPathOf(projectDir);
  const sealed = sealedPath === undefined ? undefined : readSealed(sealedPath, key);
  if (sealed !== undefined) return sealed;
  const config = parseHookConfig(file, bytes.toString('utf8'));
  let detector: StepLoopDetectorOptions;
  try {
    detector = quietDetectorOptions(config.detector);
  } catch (error) {
    throw hookSectionError(file, error);
  }
  const ready = { ...config, detector };
  if (sealedPath !== undefined) writeSealed(sealedPath, key, ready);
  return ready;
}

/** `.loopguard/config.sealed`; `undefined` when the folder is missing, a symbolic link or another user's. */
function sealedPathOf(projectDir: string): string | undefined {
  try {
    const folder = ownStateFolder(projectDir, false);
    return folder === undefined ? undefined : join(folder, SEALED_CONFIG_FILE);
  } catch {
    return undefined; // refused: the database open reports it
  }
}

/** The sealed configuration when the file at `path` is this build's seal, unchanged, of the file `key` names. */
function readSealed(path: string, key: string): HookConfig | undefined {
  let text: string;
  try {
    checkOwnStateFile(path);
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined; // missing, a symbolic link, another user's
  }
  const body = sealedBody(text, STAMP, 'state', SHA256_SEAL_CHECKSUM);
  if (body === undefined) return undefined;
  const state = JSON.parse(body) as SealedState;
  if (state.file !== key) return undefined;
  const detector =
    state.detector === undefined
      ? DEFAULT_DETECTOR_OPTIONS
      : unsealStepLoopDetectorOptions(state.detector, SHA256_SEAL_CHECKSUM, noopLogger);
  if (detector === undefined) return undefined;
  return {
    enabled: state.enabled,
    lockTimeoutMs: state.lockTimeoutMs,
    prices: state.prices,
    ...(state.spend === undefined ? {} : { spend: state.spend }),
    detector,
  };
}

/** Keeps `config`, validated from the file `key` names, sealed at `path`; a failure keeps nothing (the next call validates). */
function writeSealed(path: string, key: string, config: HookConfig): void {
  const state: SealedState = {
    file: key,
    enabled: config.enabled,
    lockTimeoutMs: config.lockTimeoutMs,
    prices: config.prices,
    ...(config.spend === undefined ? {} : { spend: config.spend }),
    ...(config.detector === DEFAULT_DETECTOR_OPTIONS
      ? {}
      : { detector: sealStepLoopDetectorOptions(config.detector, SHA256_SEAL_CHECKSUM) }),
  };
  const temporary = `${path}.${process.pid}.${Date.now()}`;
  try {
    writeFileSync(temporary, sealText(JSON.stringify(state), STAMP, 'state', SHA256_SEAL_CHECKSUM), {
      mode: 0o600,
      flag: 'wx',
    });
    renameSync(temporary, path);
  } catch {
    rmSync(temporary, { force: true });
  }
}
