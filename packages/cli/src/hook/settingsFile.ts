import {
  chmodSync,
  chownSync,
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../CliError.js';

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

/**
 * Writes `text` to the settings file found by {@link readSettingsFile}, atomically (a temporary file
 * renamed over it, with the old file's mode and owner), after copying the old file to a backup.
 * On any failure everything it made (the temporary file, the backup, a directory) is taken away.
 * Only the newest backup is kept: the older ones of the same file go once the file is written.
 * @returns the backup's path, or `undefined` when there was no file to back up
 * @throws CliError (usage) naming the file and the reason when it cannot be written
 */
export function writeSettingsFile(
  found: FoundSettingsFile,
  text: string,
  shown: (path: string) => string,
): string | undefined {
  const { target, stats } = found;
  const made: string[] = [];
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
    writeFileSync(temporary, text, { flag: 'wx' });
    made.push(temporary);
    if (stats !== null) {
      chmodSync(temporary, stats.mode & 0o7777);
      if (process.getuid?.() === 0 && stats.uid !== 0) chownSync(temporary, stats.uid, stats.gid);
    }
    renameSync(temporary, target);
    made.pop();
    if (backup !== undefined) pruneBackups(target, backup);
    return backup;
  } catch (error) {
    for (const path of made.reverse()) rmSync(path, { recursive: true, force: true });
    throw new CliError(`cannot write ${shown(target)} (${reason(error)}); nothing written`);
  }
}

/**
 * Takes away the settings file `init` made itself, once `--remove` has left it as it began (an
 * empty object), so that no `{}` stays where there was no file; its backups go with it.
 * @throws CliError naming the file when it cannot be removed
 */
export function removeSettingsFile(found: FoundSettingsFile, shown: (path: string) => string): void {
  try {
    rmSync(found.target);
    pruneBackups(found.target, undefined);
  } catch (error) {
    throw new CliError(`cannot remove ${shown(found.target)} (${reason(error)}); nothing written`);
  }
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
