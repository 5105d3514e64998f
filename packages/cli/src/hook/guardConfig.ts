import {
  type StepLoopDetectorOptions,
  sealStepLoopDetectorOptions,
  unsealStepLoopDetectorOptions,
} from '@loopguard/core/steps';
import { findConfigFile } from '../files/configFiles.js';
import { pricesBelowLibrary } from './cheaperPrices.js';
import { configKey, readSealedState, sealedPathOf, writeSealedState } from './configSeal.js';
import { DEFAULT_HOOK_CONFIG, type HookConfig, hookSectionError, parseHookConfig } from './hookConfig.js';
import { narrowsGuard } from './hookSettingsChanges.js';
import { noopLogger } from './noopLogger.js';
import { DEFAULT_DETECTOR_OPTIONS, quietDetectorOptions } from './quietDetectorOptions.js';
import { SHA256_SEAL_CHECKSUM } from './sealChecksum.js';

/** The configuration of a project without a configuration file, the detector's options ready. */
const DEFAULT_GUARD_CONFIG: Readonly<HookConfig> = Object.freeze({
  ...DEFAULT_HOOK_CONFIG,
  detector: DEFAULT_DETECTOR_OPTIONS,
});

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
  const { bytes, key } = configKey(file);
  const sealedPath = sealedPathOf(projectDir);
  const sealed = sealedPath === undefined ? undefined : readSealed(sealedPath, key);
  if (sealed instanceof Error) throw sealed;
  if (sealed !== undefined) return sealed;
  let ready: HookConfig;
  try {
    const config = parseHookConfig(file, bytes.toString('utf8'));
    let detector: StepLoopDetectorOptions;
    try {
      detector = quietDetectorOptions(config.detector);
    } catch (error) {
      throw hookSectionError(file, error);
    }
    ready = { ...config, detector };
  } catch (error) {
    // kept too: the next calls fail open without the parser, and the status line says why without
    // it (sessions55); not where `.loopguard` is missing (a folder whose session a project above
    // holds gets nothing of loopguard's, qa52: hook.log makes the folder where it is the project's)
    if (sealedPath !== undefined)
      writeSealedState(sealedPath, { file: key, error: (error as Error).message });
    throw error;
  }
  if (sealedPath !== undefined) writeSealed(sealedPath, key, ready);
  return ready;
}

/**
 * The sealed configuration when the file at `path` is this build's seal, unchanged, of the file
 * `key` names: the configuration, or the error the file was refused with.
 */
function readSealed(path: string, key: string): HookConfig | Error | undefined {
  const state = readSealedState(path, key);
  if (state === undefined) return undefined;
  if ('error' in state) return new Error(state.error);
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

/** Keeps `config`, validated from the file `key` names, sealed at `path`. */
function writeSealed(path: string, key: string, config: HookConfig): void {
  writeSealedState(path, {
    file: key,
    enabled: config.enabled,
    lockTimeoutMs: config.lockTimeoutMs,
    prices: config.prices,
    ...(config.spend === undefined ? {} : { spend: config.spend }),
    ...(config.detector === DEFAULT_DETECTOR_OPTIONS
      ? {}
      : { detector: sealStepLoopDetectorOptions(config.detector, SHA256_SEAL_CHECKSUM) }),
    // what the status line says without the file's parser nor the pricing library (trust53)
    ...(narrowsGuard(config) ? { narrows: true } : {}),
    ...(cheaperThanLibrary(config.prices) ? { cheaper: true } : {}),
  });
}

/** Whether `prices` prices a model below the pricing library; `false` when the library cannot be loaded. */
function cheaperThanLibrary(prices: HookConfig['prices']): boolean {
  try {
    return pricesBelowLibrary(prices) !== undefined;
  } catch {
    return false;
  }
}
