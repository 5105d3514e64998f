import { basename, dirname } from 'node:path';
import { projectCheaperPrices, projectHookSettings } from '../hook/projectHookSettings.js';
import { projectUnguarded, switchedOffProject, switchedOffWords } from '../hook/switchedOffProject.js';

/**
 * What `loopguard status` (after `hooks: `) and `serve`'s dashboard say when the hooks guard no
 * session, read now: where `database` is a project's (`<project>/.loopguard/state.db`) whose
 * configuration switches them off, `off in this project (hook.enabled: false in
 * loopguard.config.yaml): loopguard guards no session here` (its sessions are from before: the hooks
 * write nothing now), or `failing open in this project (config …: …): …` when its configuration
 * cannot be read or holds a value the hooks refuse (each call fails open on it, and says so in
 * `.loopguard/hook.log`); else, where the sessions started in `cwd` would be kept in another project
 * whose hooks guard no session (switched off or failing open: a repository below the database's
 * project), that one's words ({@link switchedOffWords}), so a session started there is not missing
 * from the list unsaid. `undefined` while the hooks are on. The rule is {@link projectUnguarded}'s.
 * @example projectHooksOff('/repo/.loopguard/state.db', '/repo') // undefined while the hooks are on
 */
export function projectHooksOff(database: string, cwd?: string): string | undefined {
  const project = databaseProject(database);
  const off = project === undefined ? undefined : projectUnguarded(project);
  if (off !== undefined)
    return off.error !== undefined
      ? `failing open in this project (${off.error}): loopguard guards no session here until that file is fixed`
      : `off in this project (hook.enabled: false in ${basename(off.file ?? '')}): loopguard guards no session here`;
  const here = cwd === undefined ? undefined : switchedOffProject(cwd);
  return here === undefined || here.project === project ? undefined : switchedOffWords(here);
}

/**
 * What `status` (after `hooks: `) and the dashboard say of what the project's configuration
 * changes in the guard (exemptions, thresholds), where `database` is a project's:
 * {@link projectHookSettings}'s words, read now; `undefined` for any other database or when it
 * changes nothing.
 * @example projectHooksConfigured('/repo/.loopguard/state.db') // 'settings of this project (…): stopAfter 1000 (default 1)'
 */
export function projectHooksConfigured(database: string): string | undefined {
  const project = databaseProject(database);
  return project === undefined ? undefined : projectHookSettings(project);
}

/**
 * What `status` says (after `spend: `) of the models the project's configuration prices below the
 * pricing library, where `database` is a project's: {@link projectCheaperPrices}'s words, read now.
 */
export function projectPricesBelowLibrary(database: string): string | undefined {
  const project = databaseProject(database);
  return project === undefined ? undefined : projectCheaperPrices(project);
}

/** The project whose database `database` is (`<project>/.loopguard/state.db`), else `undefined`. */
function databaseProject(database: string): string | undefined {
  const folder = dirname(database);
  return basename(database) === 'state.db' && basename(folder) === '.loopguard' ? dirname(folder) : undefined;
}
