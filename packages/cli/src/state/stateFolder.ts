import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  type Stats,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { gitTracks } from '../files/gitTracks.js';

/**
 * A `.loopguard` folder or a file of it that loopguard refuses to use: a symbolic link, or another
 * user's (anything else that is not a folder or a database is left to the error of its open). In a project folder others can write to, another user could
 * plant one to make loopguard write into a database or file of the victim's choosing.
 */
export class UnsafeStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeStateError';
  }
}

/** What `.loopguard/.gitignore` holds: everything in the folder is loopguard's state, never committed. */
const GITIGNORE = '# loopguard state (sessions, runs, logs): not for git\n*\n';

/** The mode of `.loopguard`: this user's alone (what it stores is read from the user's own files). */
const PRIVATE = 0o700;

/** A project's `.loopguard` folder. */
export function stateFolderOf(projectDir: string): string {
  return join(projectDir, '.loopguard');
}

/**
 * The project's `.loopguard` folder, checked: refused when it is a symbolic link or another
 * user's. With `create` (a writer), a missing one is made (without `recursive`: the project folder
 * must exist, and a recursive `mkdir` under `/proc` never returns), with a `.gitignore` inside so
 * that it never shows in `git status`; it is made 0700, and an existing one other users could
 * enter is made 0700 too: it holds the tool calls' commands and results (a key in a command, a
 * secret file's text), which must not become readable by other local users. Such a folder (one
 * loopguard did not make, or an older loopguard did) is refused when git tracks a file in it: a
 * repository that ships `.loopguard/state.db` would get the sessions' commands and results in the
 * next `git commit -a`, and its own tables and triggers would be loopguard's.
 * @param found - a further check of such a folder (not tracked, not marked yet: one an archive or a
 *   copy brought too), by a writer before it is marked as loopguard's, and by a reader before it
 *   reads it (a reader marks nothing); it throws to refuse it.
 * @returns the folder, or `undefined` when it is missing and not created
 * @throws UnsafeStateError naming the folder and what is wrong with it
 */
export function ownStateFolder(
  projectDir: string,
  create: boolean,
  found?: (folder: string) => void,
): string | undefined {
  const folder = stateFolderOf(projectDir);
  const stats = lstatSync(folder, { throwIfNoEntry: false });
  if (stats === undefined) {
    if (!create) return undefined;
    mkdirSync(folder, { mode: PRIVATE });
    keepOutOfGit(folder);
    markUntracked(folder, lstatSync(folder));
    return folder;
  }
  refuseUnsafe(folder, stats);
  if (!stats.isDirectory())
    throw new UnsafeStateError(
      `refusing ${folder}: it is a file, not a folder; loopguard keeps its state in a folder of this user's (remove it)`,
    );
  // git makes a checked-out folder with the umask's mode, 0700 under umask 077 as loopguard makes
  // its own (trust45): git is asked unless the folder is open to others no more and holds the mark
  // loopguard left when it made or checked this very folder
  const open = (stats.mode & 0o077) !== 0;
  if (open || !existsSync(untrackedMark(folder, stats))) {
    // Removed, not only untracked: a shipped state.db's own tables and triggers would stay in use.
    if (gitTracks('.', folder))
      throw new UnsafeStateError(
        `refusing ${folder}: git tracks files in it, and what loopguard stores there (the sessions' commands and results) would be committed with them; take it out of git and remove it (git rm -r --cached .loopguard && rm -rf .loopguard): the next session makes a new one`,
      );
    found?.(folder);
    if (create) {
      if (open) chmodSync(folder, PRIVATE);
      markUntracked(folder, stats);
    }
  }
  if (create) keepOutOfGit(folder);
  return folder;
}

/**
 * Writes the folder's `.gitignore` when it has none: a `.loopguard` that `loopguard demo` (its
 * `demo-files`), an embedding or an older loopguard made, or whose file was removed, otherwise
 * showed `state.db` in `git status`, and `git add -A` committed the sessions' commands and results
 * (secrets64). One `existsSync` on each writer's call when it is there.
 */
function keepOutOfGit(folder: string): void {
  const file = join(folder, '.gitignore');
  if (existsSync(file)) return; // ~2 µs; a failed exclusive create costs ~10 (its error)
  try {
    writeFileSync(file, GITIGNORE, { flag: 'wx' });
  } catch {
    // there already (the user's edits to it are theirs), or a folder that cannot take it
  }
}

/** How the name of a `.loopguard`'s mark starts (see `untrackedMark`). */
const MARK_PREFIX = '.untracked-';

/**
 * The empty file that says loopguard made or checked this `.loopguard` (not tracked by git), named
 * by the folder's device and inode: a repository does not know them, since a checkout's, a copy's
 * or an archive's folder is a new one (trust45). Folders from before it are asked about once. Not
 * the birth time too: where the system gives none, node gives the change time, which every file
 * made in the folder moves (git would be asked at every call).
 */
function untrackedMark(folder: string, stats: Stats): string {
  return join(folder, `${MARK_PREFIX}${stats.dev}-${stats.ino}`);
}

/**
 * Leaves this folder's mark and takes out the marks of the folders it was copied or moved from
 * (`cp -a`, another disk, a backup restored): without that each copy added one (qa50). Only when
 * a mark is written, once a folder.
 */
function markUntracked(folder: string, stats: Stats): void {
  const mark = untrackedMark(folder, stats);
  try {
    writeFileSync(mark, '', { flag: 'wx', mode: 0o600 });
    for (const name of readdirSync(folder))
      if (name.startsWith(MARK_PREFIX) && join(folder, name) !== mark)
        rmSync(join(folder, name), { force: true });
  } catch {
    // one already there, or a folder that cannot take it: git is asked again next time
  }
}

/**
 * Refuses the state file at `path` (`state.db`) when it is a symbolic link, another user's, or not
 * a regular file (a FIFO would block its reader until a writer comes); a missing file is fine (it
 * is created).
 * @throws UnsafeStateError naming the file and what is wrong with it
 */
export function checkOwnStateFile(path: string): void {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return;
  refuseUnsafe(path, stats);
  if (!stats.isFile()) {
    const kind = stats.isDirectory() ? 'a directory' : 'a FIFO, socket or device';
    throw new UnsafeStateError(`refusing ${path}: it is ${kind}, not a regular file (remove it)`);
  }
}

/**
 * The project's `state.db` for a reader (`status`, `serve`, the status line), checked as the
 * writers check it: the folder and the file refused when a symbolic link or another user's, so
 * that nobody plants a database for the user to read (in `/tmp`, which a search upwards reaches).
 * @param found - the check of a folder loopguard has not made or checked here (see {@link ownStateFolder}).
 * @returns the database's path, or `undefined` when there is none
 * @throws UnsafeStateError naming the folder or file and what is wrong with it
 */
export function ownStateDatabase(projectDir: string, found?: (folder: string) => void): string | undefined {
  if (ownStateFolder(projectDir, false, found) === undefined) return undefined;
  const path = join(stateFolderOf(projectDir), 'state.db');
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  checkOwnStateFile(path);
  return path;
}

function refuseUnsafe(path: string, stats: Stats): void {
  const problem = stats.isSymbolicLink() ? `is a symbolic link (to ${readlinkSync(path)})` : owner(stats);
  if (problem !== undefined)
    throw new UnsafeStateError(
      `refusing ${path}: it ${problem}; loopguard keeps its state only in a folder of this user's (remove it)`,
    );
}

/** Why the owner is refused, or `undefined` when it is this user (or the platform has no user ids). */
function owner(stats: Stats): string | undefined {
  const uid = process.getuid?.();
  return uid === undefined || stats.uid === uid ? undefined : `belongs to another user (uid ${stats.uid})`;
}
