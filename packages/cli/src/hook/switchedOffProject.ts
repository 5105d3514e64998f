import { join } from 'node:path';
import { projectSwitchedOff } from './hookSwitch.js';
import { sessionProjectDir } from './sessionProject.js';

/** A project whose configuration switches loopguard's hooks off: sessions started in it are not guarded. */
export interface SwitchedOffProject {
  /** The project a session started in the folder is kept in (`sessionProjectDir`). */
  project: string;
  /** The configuration file that says `hook.enabled: false`, its full path. */
  file: string;
}

/**
 * The project a session started in `startedIn` would be kept in, when its configuration switches
 * the hooks off now (`hook.enabled: false`): the hooks leave such a session alone and write nothing
 * there, so the doors that read (`status`, the dashboard, `scan`) say it instead of nothing.
 * `undefined` while the hooks are on there, and when the configuration cannot be read (the hooks
 * report that in the project's `hook.log`). Reads only: never writes in the switched-off folder.
 * @example switchedOffProject('/repo/src') // { project: '/repo', file: '/repo/loopguard.config.yaml' }
 */
export function switchedOffProject(startedIn: string): SwitchedOffProject | undefined {
  try {
    const project = sessionProjectDir(startedIn);
    const file = projectSwitchedOff(project);
    return file === undefined ? undefined : { project, file: join(project, file) };
  } catch {
    return undefined;
  }
}

/**
 * The words every door uses for it: `off in /repo (hook.enabled: false in
 * /repo/loopguard.config.yaml): loopguard guards no session started there`.
 */
export function switchedOffWords({ project, file }: SwitchedOffProject): string {
  return `off in ${project} (hook.enabled: false in ${file}): loopguard guards no session started there`;
}
