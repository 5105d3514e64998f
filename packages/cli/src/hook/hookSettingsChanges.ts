import {
  DEFAULT_EXEMPT_COMMANDS,
  DEFAULT_EXEMPT_TOOLS,
  defaultStepLoopDetectorOptions,
} from '@loopguard/core/steps';
import { DEFAULT_HOOK_LOCK_TIMEOUT_MS, type HookConfig } from './hookConfig.js';

/** What a project's configuration changes in the guard, as {@link hookSettingsChanges} lists it. */
export interface HookSettingsChanges {
  /** `exemptCommands` sources beyond the default polling commands. */
  commands: string[];
  /** `exemptTools` beyond the default polling tools. */
  tools: string[];
  /** `repeatThreshold 1000000 (default 3)`: each option other than its default, the lock wait included. */
  changed: string[];
}

/**
 * What `config` changes in the guard: exemptions beyond the defaults, and each detector option
 * (and `hook.lockTimeoutMs`: at 0 a call that meets another's lock fails open) other than its
 * default. The one rule of what narrows the guard: `status`, the dashboard and `init` say it in
 * words (`projectHookSettings`), the hooks seal whether there is any for the status line (trust53).
 */
export function hookSettingsChanges(
  config: Pick<HookConfig, 'detector' | 'lockTimeoutMs'>,
): HookSettingsChanges {
  const { exemptCommands, exemptTools, ...thresholds } = config.detector;
  const commands = (exemptCommands ?? [])
    .slice(DEFAULT_EXEMPT_COMMANDS.length)
    .map((pattern) => pattern.source);
  const tools = (exemptTools ?? []).filter((tool) => !DEFAULT_EXEMPT_TOOLS.includes(tool));
  const defaults: Record<string, unknown> = {
    ...defaultStepLoopDetectorOptions(),
    lockTimeoutMs: DEFAULT_HOOK_LOCK_TIMEOUT_MS,
  };
  const options = { ...thresholds, lockTimeoutMs: config.lockTimeoutMs };
  const changed = Object.entries(options)
    // the hooks' detector carries their logger: not a setting
    .filter(([key, value]) => key !== 'logger' && value !== defaults[key])
    .map(([key, value]) => `${key} ${JSON.stringify(value)} (default ${JSON.stringify(defaults[key])})`);
  return { commands, tools, changed };
}

/** Whether {@link hookSettingsChanges} lists anything. */
export function narrowsGuard(config: Pick<HookConfig, 'detector' | 'lockTimeoutMs'>): boolean {
  const { commands, tools, changed } = hookSettingsChanges(config);
  return commands.length + tools.length + changed.length > 0;
}
