import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findConfigFile } from '../configFiles.js';

/**
 * The project a session that started in `dir` is recorded in: the nearest folder from `dir` up to
 * its git repository's root (the folder holding `.git`, a worktree's too) that holds loopguard's
 * database (`.loopguard/state.db`) or configuration (`loopguard.config.*`), else `dir` itself.
 * A session started in `repo/src` (Codex, or Claude Code and Gemini CLI installed with `--user`)
 * is so judged under the repository's configuration (its budget, its off switch) and listed by
 * `status` and the dashboard of the repository, not in a database of its own in `repo/src` (qa47).
 * Never above the repository (another user's folders may be there), never in a folder that is no
 * repository's (each folder its own project, as before).
 * @example sessionProjectDir('/home/me/repo/src') // '/home/me/repo' when it has .loopguard/state.db
 */
export function sessionProjectDir(dir: string): string {
  // the common case first: the session's own folder is the project
  if (hasProjectFiles(dir)) return dir;
  const root = repositoryRoot(dir);
  if (root === undefined || root === dir) return dir;
  // `root` is above `dir`: the walk ends there
  for (let folder = dirname(dir); ; folder = dirname(folder)) {
    if (hasProjectFiles(folder)) return folder;
    if (folder === root) return dir;
  }
}

/** Whether `folder` holds loopguard's database or configuration file. */
function hasProjectFiles(folder: string): boolean {
  return existsSync(join(folder, '.loopguard', 'state.db')) || findConfigFile(folder) !== undefined;
}

/** The nearest folder from `dir` up that holds `.git`; `undefined` outside a repository. */
function repositoryRoot(dir: string): string | undefined {
  for (let folder = dir; ; ) {
    if (existsSync(join(folder, '.git'))) return folder;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}
