import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LoopGuardError } from '@loopguard/core';
import { type LoopGuardDatabase, openLoopGuardDatabase } from '@loopguard/sqlite';
import { olderSchema } from '../state/olderSchema.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';

/**
 * What `--db <folder>` says: a folder is no database (SQLite's own word would be "unable to open"
 * or "not a database"), and the file to give when the folder holds `state.db` or a single `.db`.
 */
function folderGiven(path: string, absolute: string): CliError {
  let files: string[] = [];
  try {
    files = readdirSync(absolute).filter((name) => name.endsWith('.db'));
  } catch {
    // an unreadable folder: named as a folder all the same, no file offered
  }
  const file = files.includes('state.db') ? 'state.db' : files.length === 1 ? files[0] : undefined;
  const offer = file === undefined ? '' : ` (give the file: --db ${join(path, file)})`;
  return new CliError(`--db ${path}: a folder, not a database file${offer}`);
}

/**
 * Opens the `--db` file read-only for the inspecting commands (`serve`, `status`, `recoveries`).
 * @param given - whether the user gave it with `--db`; else it was found (`findStateDatabase`)
 *   and its errors name the file alone, never a flag the user did not give. @default true
 * @throws CliError (exit code 2) naming `--db` when the file is missing, a folder, not SQLite or too new.
 * @example const database = openDatabaseFile(options.db, io);
 */
export function openDatabaseFile(path: string, io: CliIo, given = true): LoopGuardDatabase {
  const absolute = resolve(io.cwd, path);
  const named = given ? `--db ${path}` : absolute;
  if (!existsSync(absolute)) throw new CliError(`${named}: no such file`);
  if (statSync(absolute).isDirectory()) throw folderGiven(path, absolute);
  try {
    return openLoopGuardDatabase(absolute, { readonly: true });
  } catch (error) {
    if (error instanceof LoopGuardError) {
      const reason = /SQLITE_NOTADB|not a database/i.test(`${error.message} ${String(error.cause)}`)
        ? 'not a SQLite database'
        : (olderSchema(error.message) ?? error.message);
      throw new CliError(`${named}: ${reason}`, undefined, { cause: error });
    }
    throw error;
  }
}
