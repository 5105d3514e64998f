import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { CliError } from '../terminal/CliError.js';

/**
 * The SQLite header's `application_id` the demo gives its database ("LGDM"): the mark by which a
 * later demo knows the file as its own, to delete and write anew (polish65).
 */
export const DEMO_APPLICATION_ID = 0x4c47444d;

/**
 * Throws, before anything is deleted, when `path` holds what no demo wrote: a user's recorded
 * sessions (`--db .loopguard/state.db`), any other database, any other file. A missing or empty file
 * and a previous demo's database (its {@link DEMO_APPLICATION_ID}) pass.
 * @param shown - `--db` as the user typed it, for the message.
 * @throws CliError (usage, exit 2) naming `--db`.
 * @example demoDatabaseCheck('/repo/.loopguard/demo.db', '.loopguard/demo.db');
 */
export function demoDatabaseCheck(path: string, shown: string): void {
  if (!existsSync(path) || (statSync(path).isFile() && statSync(path).size === 0)) return;
  if (applicationId(path) === DEMO_APPLICATION_ID) return;
  throw new CliError(
    `--db ${shown}: holds data the demo did not write, kept as it is (the demo deletes and rewrites its own file): give another file, or delete this one yourself if an older loopguard's demo wrote it`,
  );
}

/** Marks the demo's fresh database as the demo's ({@link DEMO_APPLICATION_ID}). */
export function markDemoDatabase(db: Database.Database): void {
  db.pragma(`application_id = ${DEMO_APPLICATION_ID}`);
}

function applicationId(path: string): number | undefined {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.pragma('application_id', { simple: true }) as number;
    } finally {
      db.close();
    }
  } catch {
    return undefined; // a folder, not SQLite, unreadable: not the demo's
  }
}
