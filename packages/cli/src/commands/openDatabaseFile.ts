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
        : (olderSchema(error.message) ?? error.message);
      throw new CliError(`--db ${path}: ${reason}`, undefined, { cause: error });
    }
    throw error;
  }
}

/**
 * A database an earlier loopguard wrote, in the user's words (qa54): a read-only door does not
 * migrate it (it writes in no folder a hook has not checked), the hooks and `run` do when they
 * next open it. `undefined` for any other message. The versions come from `assertSchemaCurrent`'s
 * own message (`schema version 14, older than 15`).
 */
function olderSchema(message: string): string | undefined {
  const versions = /schema version (\d+), older than (\d+)/.exec(message);
  if (versions === null) return undefined;
  return `written by an earlier loopguard (schema version ${versions[1]}; this one reads ${versions[2]}): the next tool call loopguard's hooks guard in this project, or the next loopguard run here, brings it up to date`;
}
