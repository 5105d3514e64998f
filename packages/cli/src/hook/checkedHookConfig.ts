import { StepLoopDetector } from '@loopguard/core/steps';
import { findConfigFile } from '../files/configFiles.js';
import { type HookConfig, hookSectionError, readHookConfigNow } from './hookConfig.js';
import { quietDetectorOptions } from './quietDetectorOptions.js';

/**
 * The project's configuration as {@link readHookConfig} reads it, with its `hook` section's
 * detector options checked once, as `scan` and `init` check them before they read or write
 * anything (a hook call builds its detector from them, and fails open on a bad one).
 * @throws Error naming the file and the section: `config <file>: hook: "repeatThreshold" Too small: …`,
 *   or readHookConfig's error.
 * @example const { detector } = await checkedHookConfig(process.cwd());
 */
export async function checkedHookConfig(projectDir: string): Promise<HookConfig> {
  return checkedHookConfigNow(projectDir);
}

/**
 * {@link checkedHookConfig} without waiting: what `status` and the dashboard check to say that the
 * hooks fail open on the project's configuration.
 * @throws as {@link checkedHookConfig}
 */
export function checkedHookConfigNow(projectDir: string): HookConfig {
  const config = readHookConfigNow(projectDir);
  try {
    new StepLoopDetector(quietDetectorOptions(config.detector));
  } catch (error) {
    throw hookSectionError(findConfigFile(projectDir), error);
  }
  return config;
}
