import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fchmodSync,
  fchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../terminal/CliError.js';

/** A settings file as found on disk: where its bytes are, and its text when it exists. */
export interface FoundSettingsFile {
  /** The path the CLI reads (a symbolic link is followed to this file, which is the one written). */
  readonly target: string;
  /** The file's text, or `null` when there is no file yet. */
  readonly text: string | null;
  /** The file's mode and owner, kept when it is rewritten. */
  readonly stats: Stats | null;
}

/**
 * Reads the settings file at `file`; `shown` names a path in messages.
 * @throws CliError (usage) naming the file when it cannot be read as UTF-8 text: its directory is
 *   not one, it is a dangling symbolic link or not a regular file, or reading fails
 */
export function readSettingsFile(file: string, shown: (path: string) => string): FoundSettingsFile {
  const dir = dirname(file);
  const dirStats = attempt(() => statSync(dir, { throwIfNoEntry: false }), `cannot read ${shown(dir)}`);
  if (dirStats === undefined) refuseDanglingLink(dir, shown);
  else if (!dirStats.isDirectory()) throw new CliError(`${shown(dir)} is not a directory; nothing written`);
  const link = attempt(() => lstatSync(file, { throwIfNoEntry: false }), `cannot read ${shown(file)}`);
  if (link === undefined) return { target: file, text: null, stats: null };
  if (link.isSymbolicLink() && !existsSync(file)) refuseDanglingLink(file, shown);
  const target = attempt(() => realpathSync(file), `cannot read ${shown(file)}`);
  const stats = attempt(() => statSync(target), `cannot read ${shown(file)}`);
  if (!stats.isFile()) throw new CliError(`${shown(file)} is not a regular file; nothing written`);
  const bytes = attempt(() => readFileSync(target), `cannot read ${shown(file)}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CliError(`${shown(file)} is not UTF-8 text; nothing written`);
  }
  return { target, text, stats };
}

/** A settings file {@link writeSettingsFile} wrote: its backup, and how to put the old one back. */
export interface WrittenSettingsFile {
  /** The backup's path, or `undefined` when there was no file to back up. */
  readonly backup: string | undefined;
  /**
   * Puts the file back as it was: the backup renamed over it, or the new file and the directories
   * made for it taken away (when a later write of the same `init` fails).
   * @throws CliError naming the file when it cannot
   */
  undo(): void;
}

/**
 * Writes `text` to the settings file found by {@link readSettingsFile}, atomically (a temporary file
 * renamed over it), after copying the old file to a backup. The temporary file is created with the
 * final mode (the old file's, else `newFileMode`) and owner: another user never gets to read it
 * (`~/.claude.json` holds the user's credentials). On any failure everything it made (the
 * temporary file, the backup, a directory) is taken away. Only the newest backup is kept: the
 * older ones of the same file go once the file is written.
 * @param newFileMode - the mode of a file that did not exist (the umask still applies). @default 0o666
 * @throws CliError (usage) naming the file and the reason when it cannot be written
 */
export function writeSettingsFile(
  found: FoundSettingsFile,
  text: string,
  shown: (path: string) => string,
  newFileMode = 0o666,
): WrittenSettingsFile {
  const { target, stats } = found;
  const made: string[] = [];
  const undo = (): void => {
    for (const path of made.reverse()) rmSync(path, { recursive: true, force: true });
  };
  try {
    const dir = mkdirSync(dirname(target), { recursive: true });
    if (dir !== undefined) made.push(dir);
    let backup: string | undefined;
    if (stats !== null) {
      backup = `${target}.loopguard-backup-${Date.now()}`;
      copyFileSync(target, backup, constants.COPYFILE_EXCL);
      made.push(backup);
    }
    const temporary = `${target}.loopguard-${process.pid}.tmp`;
    const fd = openSync(temporary, 'wx', stats === null ? newFileMode : stats.mode & 0o777);
    made.push(temporary);
    try {
      if (stats !== null) {
        fchmodSync(fd, stats.mode & 0o7777); // the bits the umask took away
        if (process.getuid?.() === 0 && stats.uid !== 0) fchownSync(fd, stats.uid, stats.gid);
      }
      writeFileSync(fd, text);
    } finally {
      closeSync(fd);
    }
    refuseChanged(found);
    renameSync(temporary, target);
    made.pop();
    if (backup === undefined) made.push(target);
    else pruneBackups(target, backup);
    return {
      backup,
      undo: () => {
        try {
          if (backup === undefined) undo();
          else renameSync(backup, target);
        } catch (error) {
          throw new CliError(`cannot put back ${shown(target)} as it was (${reason(error)})`);
        }
      },
    };
  } catch (error) {
    undo();
    throw new CliError(`cannot write ${shown(target)} (${reason(error)}); nothing written`);
  }
}

/**
 * Takes away the settings file `init` made itself, once `--remove` has left it as it began (an
 * empty object), so that no `{}` stays where there was no file; its backups go with it, and so
 * does its directory when `init` made that too (`folder`) and it is left empty.
 * @returns how to put the file back (its text and mode, its directory), when a later write fails
 * @throws CliError naming the file when it cannot be removed
 */
export function removeSettingsFile(
  found: FoundSettingsFile,
  shown: (path: string) => string,
  folder = false,
): WrittenSettingsFile {
  const dir = dirname(found.target);
  try {
    refuseChanged(found);
    rmSync(found.target);
    pruneBackups(found.target, undefined);
    if (folder && readdirSync(dir).length === 0) rmdirSync(dir);
  } catch (error) {
    throw new CliError(`cannot remove ${shown(found.target)} (${reason(error)}); nothing written`);
  }
  return {
    backup: undefined,
    undo: () => {
      try {
        mkdirSync(dir, { recursive: true });
        writeFileSync(found.target, found.text ?? '', { mode: (found.stats?.mode ?? 0o666) & 0o777 });
      } catch (error) {
        throw new CliError(`cannot put back ${shown(found.target)} as it was (${reason(error)})`);
      }
    },
  };
}

/**
 * Throws when the file is no longer the one read: the CLI (Claude Code rewrites `~/.claude.json`
 * as it runs) or the user changed it since, and renaming over it would lose that change. Checked
 * just before the rename, which leaves a window of microseconds instead of the whole `init`.
 */
function refuseChanged(found: FoundSettingsFile): void {
  let now: string | null;
  try {
    now = readFileSync(found.target, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    now = null;
  }
  if (now !== found.text) throw new Error('it changed while init edited it: run init again');
}

/** Removes the backups of `target` other than `keep`; one that cannot be removed is left. */
function pruneBackups(target: string, keep: string | undefined): void {
  const prefix = `${basename(target)}.loopguard-backup-`;
  for (const name of readdirSync(dirname(target))) {
    const path = join(dirname(target), name);
    if (name.startsWith(prefix) && path !== keep) rmSync(path, { force: true });
  }
}

/** A symbolic link at `path` whose target does not exist is refused (a missing `path` is fine). */
function refuseDanglingLink(path: string, shown: (path: string) => string): void {
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) {
    throw new CliError(
      `${shown(path)} is a symbolic link to ${readlinkSync(path)}, which does not exist; nothing written`,
    );
  }
}

function attempt<T>(action: () => T, what: string): T {
  try {
    return action();
  } catch (error) {
    throw new CliError(`${what} (${reason(error)}); nothing written`);
  }
}

/** `operation not permitted, EPERM` from Node's `EPERM: operation not permitted, rename 'a' -> 'b'`. */
function reason(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const text = /^[A-Z]+: ([^,]+)/.exec(message)?.[1] ?? message;
  return code === undefined ? text : `${text}, ${code}`;
}
