import { basename, dirname } from 'node:path';
import { checkedHookConfigNow } from '../hook/checkedHookConfig.js';
import { projectSwitchedOff } from '../hook/hookSwitch.js';

/**
 * What `loopguard status` (after `hooks: `) and `serve`'s dashboard say when `database` is a
 * project's (`<project>/.loopguard/state.db`) whose configuration switches the hooks off, read
 * now: `off in this project (hook.enabled: false in loopguard.config.yaml): loopguard guards no
 * session here` (its sessions are from before: the hooks write nothing now), or `failing open in
 * this project (config …: …): …` when its configuration cannot be read or holds a value the hooks
 * refuse (each call fails open on it, and says so in `.loopguard/hook.log`). `undefined` for any
 * other file and while the hooks are on. The off rule is the status line's, {@link projectSwitchedOff}.
 * @example projectHooksOff('/repo/.loopguard/state.db') // undefined while the hooks are on
 */
export function projectHooksOff(database: string): string | undefined {
  const folder = dirname(database);
  if (basename(database) !== 'state.db' || basename(folder) !== '.loopguard') return undefined;
  const project = dirname(folder);
  try {
    const file = projectSwitchedOff(project);
    if (file !== undefined)
      return `off in this project (hook.enabled: false in ${file}): loopguard guards no session here`;
    checkedHookConfigNow(project);
    return undefined;
  } catch (error) {
    // every hook call fails open on it (hook.log says so at each call): the user reads it here too
    const reason = (error as Error).message.split('\n')[0];
    return `failing open in this project (${reason}): loopguard guards no session here until that file is fixed`;
  }
}
