import { basename, dirname } from 'node:path';
import { projectSwitchedOff } from '../hook/hookSwitch.js';
import { switchedOffProject, switchedOffWords } from '../hook/switchedOffProject.js';

/**
 * What `loopguard status` (after `hooks: `) and `serve`'s dashboard say when the hooks are switched
 * off, read now: where `database` is a project's (`<project>/.loopguard/state.db`) whose
 * configuration switches them off, `off in this project (hook.enabled: false in
 * loopguard.config.yaml): loopguard guards no session here` (its sessions are from before: the hooks
 * write nothing now); else, where the sessions started in `cwd` would be kept in another project
 * whose configuration does (a repository below the database's project: sessions53), that one's
 * words ({@link switchedOffWords}), so a session started there is not missing from the list unsaid.
 * `undefined` while the hooks are on, and when the configuration cannot be read (the hooks report
 * that in `.loopguard/hook.log`). The rule is the status line's, {@link projectSwitchedOff}.
 * @example projectHooksOff('/repo/.loopguard/state.db', '/repo') // undefined while the hooks are on
 */
export function projectHooksOff(database: string, cwd?: string): string | undefined {
  const folder = dirname(database);
  const project =
    basename(database) === 'state.db' && basename(folder) === '.loopguard' ? dirname(folder) : undefined;
  if (project !== undefined) {
    let file: string | undefined;
    try {
      file = projectSwitchedOff(project);
    } catch {
      file = undefined;
    }
    if (file !== undefined)
      return `off in this project (hook.enabled: false in ${file}): loopguard guards no session here`;
  }
  const here = cwd === undefined ? undefined : switchedOffProject(cwd);
  return here === undefined || here.project === project ? undefined : switchedOffWords(here);
}
