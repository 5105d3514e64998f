import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { ownStateFolder, UnsafeStateError } from '../state/stateFolder.js';
import { CliError } from '../terminal/CliError.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';

/**
 * Throws when the folder `--db` names is not there (or is a file), before anything is read or
 * written: a typo must not make folders (`--db /x/y.db` made `/x`). The demo's own `.loopguard` is
 * the one folder it makes, in a project folder that is there ({@link demoStateFolderCheck}).
 * @param shown - `--db` as the user typed it, for the message.
 * @throws CliError (usage, exit 2) naming `--db` and the missing folder.
 * @example demoFolderExists('/x/y.db', '/x/y.db'); // --db /x/y.db: no such folder /x
 */
export function demoFolderExists(path: string, shown: string): void {
  const folder = dirname(path);
  const needed = basename(folder) === '.loopguard' ? dirname(folder) : folder;
  let there = false;
  try {
    there = statSync(needed).isDirectory();
  } catch {
    // missing, or under a file (ENOTDIR): no such folder either way
  }
  if (!there) throw new CliError(`--db ${shown}: no such folder ${needed}`);
}

/**
 * Throws, before anything is deleted or written (after the checks that only read), when the
 * database's folder is a `.loopguard` that is a symbolic link or another user's (redteam68): `demo` run in `/tmp` wrote its database and its
 * `demo-files` through the `.loopguard` another user left there, into whatever folder her link
 * named. The rule every writer applies to a project's `.loopguard` (`ownStateFolder`), which also
 * makes a missing one there and then (0700, no folder of hers can slip in before the database's
 * open); a project folder that is not there yet is left to that open. A `--db` in another folder
 * is the user's choice.
 * @throws CliError (exit 1, as `run` and `status` refuse it) naming the folder and why.
 * @example demoStateFolderCheck('/tmp/.loopguard/demo.db');
 */
export function demoStateFolderCheck(path: string): void {
  if (basename(dirname(path)) !== '.loopguard') return;
  const project = dirname(dirname(path));
  try {
    ownStateFolder(project, existsSync(project));
  } catch (error) {
    if (error instanceof UnsafeStateError)
      throw new CliError(error.message, EXIT_CODES.internalError, { cause: error });
    throw error;
  }
}

/**
 * The SQLite header's `application_id` the demo gives its database ("LGDM"): the mark by which a
 * later demo knows the file as its own, to delete and write anew (polish65).
 */
export const DEMO_APPLICATION_ID = 0x4c47444d;

/**
 * Throws, before anything is deleted, when `path` holds what no demo wrote: a user's recorded
 * sessions (`--db .loopguard/state.db`), any other database, any other file. A missing or empty file,
 * a previous demo's database (its {@link DEMO_APPLICATION_ID}) and the demo's default file
 * (`.loopguard/demo.db`, which older demos wrote unmarked) pass.
 * @param shown - `--db` as the user typed it, for the message.
 * @throws CliError (usage, exit 2) naming `--db`.
 * @example demoDatabaseCheck('/repo/.loopguard/demo.db', '.loopguard/demo.db');
 */
export function demoDatabaseCheck(path: string, shown: string): void {
  if (!existsSync(path) || (statSync(path).isFile() && statSync(path).size === 0)) return;
  if (applicationId(path) === DEMO_APPLICATION_ID) return;
  // the demo's own default place: an older loopguard's demo wrote it there without the mark
  if (basename(path) === 'demo.db' && basename(dirname(path)) === '.loopguard') return;
  throw new CliError(
    `--db ${shown}: holds data the demo did not write, kept as it is (the demo deletes and rewrites its own file): give another file, or delete this one yourself if an older loopguard's demo wrote it`,
  );
}

/**
 * Marks the demo's fresh database as the demo's ({@link DEMO_APPLICATION_ID}), written through to
 * the file's header at once (a checkpoint): a demo killed half-way is still known as the demo's.
 */
export function markDemoDatabase(db: Database.Database): void {
  db.pragma(`application_id = ${DEMO_APPLICATION_ID}`);
  db.pragma('wal_checkpoint(TRUNCATE)');
}

/** The magic string every SQLite file starts with. */
const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * The `application_id` in the file's header (offset 68, big-endian), read as bytes: opening the file
 * with SQLite, even read-only, would leave a `-wal` and a `-shm` beside a user's database.
 */
function applicationId(path: string): number | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    const header = Buffer.alloc(72);
    const fd = openSync(path, 'r');
    try {
      if (readSync(fd, header, 0, header.length, 0) < header.length) return undefined;
    } finally {
      closeSync(fd);
    }
    return header.toString('latin1', 0, 16) === SQLITE_MAGIC ? header.readUInt32BE(68) : undefined;
  } catch {
    return undefined; // unreadable: not the demo's
  }
}

/** The file by which a `demo-files` folder is known as one a demo made (polish66). */
const DEMO_FOLDER_MARK = '.made-by-loopguard-demo';

/**
 * Throws, before anything is deleted, when the `demo-files` folder beside the demo's database holds
 * what no demo made (`demo --db new.db` in a folder of the user's): the demo empties it at every
 * run. A missing or empty folder, one a demo marked ({@link markDemoFolder}) and the one at the
 * demo's default place (`.loopguard/demo-files`, which older demos left unmarked) pass.
 * @param shown - `--db` as the user typed it, for the message.
 * @throws CliError (usage, exit 2) naming `--db` and the folder.
 * @example demoFolderCheck('/repo/.loopguard/demo-files', '.loopguard/demo.db');
 */
export function demoFolderCheck(folder: string, shown: string): void {
  const stat = lstatSync(folder, { throwIfNoEntry: false });
  if (stat === undefined || basename(dirname(folder)) === '.loopguard') return;
  if (stat.isDirectory() && (readdirSync(folder).length === 0 || existsSync(join(folder, DEMO_FOLDER_MARK))))
    return;
  throw new CliError(
    `--db ${shown}: the folder ${basename(folder)} beside it holds files the demo did not make, kept as they are (the demo empties its own at every run): give a --db in another folder`,
  );
}

/** Marks the demo's fresh `demo-files` folder as the demo's, for {@link demoFolderCheck}. */
export function markDemoFolder(folder: string): void {
  writeFileSync(join(folder, DEMO_FOLDER_MARK), 'made by loopguard demo: emptied at every demo run\n');
}
