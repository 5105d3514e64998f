import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loopguardHome } from '../files/agentHome.js';
import { findConfigFile } from '../files/configFiles.js';

/**
 * The project a session that started in `dir` is recorded in: the nearest folder from `dir` up to
 * its git repository's root (the folder holding `.git`, a worktree's too) that holds loopguard's
 * database (`.loopguard/state.db`) or configuration (`loopguard.config.*`), else the repository's
 * root itself (sessions50: a repository's first session started in `repo/src` no longer makes
 * `repo/src` a project apart from the sessions later started at the root), else `dir`.
 * A session started in `repo/src` (Codex, or Claude Code and Gemini CLI installed with `--user`)
 * is so judged under the repository's configuration (its budget, its off switch) and listed by
 * `status` and the dashboard of the repository, not in a database of its own in `repo/src` (qa47).
 * Never above the repository (another user's folders may be there), never in a folder that is no
 * repository's (each folder its own project, as before), never the home folder as a repository
 * (dotfiles kept in git: every folder below it would be one project), and never through a folder
 * above `dir` that another user owns or that every user shares (/tmp: anyone could plant a `.git`
 * and an off switch there).
 * @example sessionProjectDir('/home/me/repo/src') // '/home/me/repo' when it has .loopguard/state.db
 */
export function sessionProjectDir(dir: string): string {
  // the common case first: the session's own folder is the project
  if (hasProjectFiles(dir) || existsSync(join(dir, '.git'))) return dir;
  // the folders above `dir` up to its repository's root, each the user's own (qa48: a `.git` and an
  // off switch planted in /tmp, or in another user's folder, took every session below them)
  const above: string[] = [];
  for (let folder = dirname(dir); isUsersOwn(folder); folder = dirname(folder)) {
    above.push(folder);
    if (existsSync(join(folder, '.git')))
      return above.find(hasProjectFiles) ?? (isHome(folder) ? dir : folder);
    if (dirname(folder) === folder) return dir;
  }
  return dir;
}

/** Whether `folder` is the user's home folder ({@link loopguardHome}; none placed: taken as it). */
function isHome(folder: string): boolean {
  const home = loopguardHome(process.env);
  return home === undefined || resolve(home) === folder;
}

/** Whether `folder` holds loopguard's database or configuration file. */
function hasProjectFiles(folder: string): boolean {
  return existsSync(join(folder, '.loopguard', 'state.db')) || findConfigFile(folder) !== undefined;
}

/**
 * Whether `folder` is the user's own and not a scratch folder every user shares (world-writable
 * and sticky: /tmp, which root owns, so a root user's sessions would otherwise walk through it).
 * Only an owner check, as git's own (`safe.directory`): a folder of the user's that is merely
 * world-writable (a Windows drive under WSL shows every folder 0777) is the user's, and another
 * user could change anything in it anyway. Where the system has no users (Windows), every folder.
 */
export function isUsersOwn(folder: string): boolean {
  try {
    const stats = statSync(folder);
    const uid = process.getuid?.();
    return (uid === undefined || stats.uid === uid) && (stats.mode & 0o1002) !== 0o1002;
  } catch {
    return false;
  }
}
