import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { LoopGuardError } from '@loopguard/core';
import { type LoopGuardDatabase, openLoopGuardDatabase } from '@loopguard/sqlite';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';

/**
 * Opens the `--db` file read-only for the inspecting commands (`serve`, `status`, `recoveries`).
 * @throws CliError (exit code 2) naming `--db` when the file is missing, not SQLite or too new.
 * @example const database = openDatabaseFile(options.db, io);
 */
export function openDatabaseFile(path: string, io: CliIo): LoopGuardDatabase {
  const absolute = resolve(io.cwd, path);
  if (!existsSync(absolute)) throw new CliError(`--db ${path}: no such file`);
  try {
    return openLoopGuardDatabase(absolute, { readonly: true });
  } catch (error) {
    if (error instanceof LoopGuardError) {
      const reason = /SQLITE_NOTADB|not a database/i.test(`${error.message} ${String(error.cause)}`)
        ? 'not a SQLite database'
        : error.message;
      throw new CliError(`--db ${path}: ${reason}`, undefined, { cause: error });
    }
    throw error;
  }
}
