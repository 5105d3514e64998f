import { basename, dirname } from 'node:path';
import { projectSwitchedOff } from '../hook/hookSwitch.js';

/**
 * What `loopguard status` (after `hooks: `) and `serve`'s dashboard say when `database` is a
 * project's (`<project>/.loopguard/state.db`) whose configuration switches the hooks off, read
 * now: `off in this project (hook.enabled: false in loopguard.config.yaml): loopguard guards no
 * session here` (its sessions are from before: the hooks write nothing now). `undefined` for any
 * other file, while the hooks are on, and when the configuration cannot be read (the hooks report
 * that in `.loopguard/hook.log`). The rule is the status line's, {@link projectSwitchedOff}.
 * @example projectHooksOff('/repo/.loopguard/state.db') // undefined while the hooks are on
 */
export function projectHooksOff(database: string): string | undefined {
  const folder = dirname(database);
  if (basename(database) !== 'state.db' || basename(folder) !== '.loopguard') return undefined;
  let file: string | undefined;
  try {
    file = projectSwitchedOff(dirname(folder));
  } catch {
    return undefined;
  }
  return file === undefined
    ? undefined
    : `off in this project (hook.enabled: false in ${file}): loopguard guards no session here`;
}
