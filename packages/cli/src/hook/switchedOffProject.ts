import { join } from 'node:path';
import { checkedHookConfigNow } from './checkedHookConfig.js';
import { projectSwitchedOff } from './hookSwitch.js';
import { sessionProjectDir } from './sessionProject.js';

/**
 * A project whose hooks guard no session now: its configuration switches them off, or they fail
 * open on it (a file that cannot be read, a value they refuse: each call says so in `hook.log`).
 */
export interface SwitchedOffProject {
  /** The project a session started in the folder is kept in (`sessionProjectDir`). */
  project: string;
  /** The configuration file that says `hook.enabled: false`, its full path; absent when failing open. */
  file?: string;
  /** The configuration's first error line the hooks fail open on (`config <file>: hook: …`); absent when switched off. */
  error?: string;
}

/**
 * Why the hooks guard no session in `project` now, read now: `hook.enabled: false` (the status
 * line's rule, {@link projectSwitchedOff}), else the error the hooks fail open on (the checks
 * `scan` and `init` make, {@link checkedHookConfigNow}); `undefined` while they are on. Reads only.
 */
export function projectUnguarded(project: string): SwitchedOffProject | undefined {
  try {
    const file = projectSwitchedOff(project);
    if (file !== undefined) return { project, file: join(project, file) };
    checkedHookConfigNow(project);
    return undefined;
  } catch (error) {
    return { project, error: (error as Error).message.split('\n')[0] ?? '' };
  }
}

/**
 * The project a session started in `startedIn` would be kept in, when its hooks guard no session
 * now ({@link projectUnguarded}): the hooks leave such a session alone and record nothing of it,
 * so the doors that read (`status`, the dashboard, `scan`) say it instead of nothing. `undefined`
 * while the hooks are on there. Reads only: never writes in that folder.
 * @example switchedOffProject('/repo/src') // { project: '/repo', file: '/repo/loopguard.config.yaml' }
 */
export function switchedOffProject(startedIn: string): SwitchedOffProject | undefined {
  let project: string;
  try {
    project = sessionProjectDir(startedIn);
  } catch {
    return undefined;
  }
  return projectUnguarded(project);
}

/**
 * The words every door uses for it: `off in /repo (hook.enabled: false in
 * /repo/loopguard.config.yaml): loopguard guards no session started there`, or `failing open in
 * /repo (config …): loopguard guards no session started there until that file is fixed`.
 */
export function switchedOffWords({ project, file, error }: SwitchedOffProject): string {
  return error !== undefined
    ? `failing open in ${project} (${error}): loopguard guards no session started there until that file is fixed`
    : `off in ${project} (hook.enabled: false in ${file}): loopguard guards no session started there`;
}
