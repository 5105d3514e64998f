import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { foreignSchemaObjects } from '@loopguard/sqlite';
import Database from 'better-sqlite3';
import { ownStateDatabase, UnsafeStateError } from './stateFolder.js';

/**
 * Refuses a `.loopguard` loopguard did not make (an archive's, a copy's: see `ownStateFolder`) whose
 * `state.db` holds schema objects its migrations did not make: a trigger would run inside every
 * write of the hooks and `run` (undo a session's memory so that no loop is found, trust48), a view
 * would change what every door reads of every session (a stopped one read "no loop found", trust49).
 * Asked once, before the folder is marked as loopguard's.
 * @throws UnsafeStateError naming the folder and what to do
 */
export function refuseForeignSchema(folder: string): void {
  const path = join(folder, 'state.db');
  let count: number;
  try {
    // a link, a FIFO, a corrupt file: the database's open refuses it as before, and says why
    if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return;
    count = foreignSchemaObjects(path);
  } catch {
    return;
  }
  if (count > 0)
    throw new UnsafeStateError(
      `refusing ${folder}: loopguard did not make it, and its state.db holds ${count} table(s), view(s), index(es) or trigger(s) loopguard's schema has not, which would change what the hooks and loopguard run record and what every door reads; remove it (rm -rf .loopguard): the next session makes a new one`,
    );
}

/**
 * The project's `state.db` for a door that reads it (`status`, the dashboard, `scan`, the status
 * line): {@link ownStateDatabase}, and a folder loopguard has not made or checked here (an archive's,
 * a copy's, before any hook's first call) checked as that call will check it, read-only
 * ({@link refuseForeignSchema}): a door trusts of a database it did not write only what the hooks
 * would take of it (trust51).
 * @throws UnsafeStateError as ownStateDatabase and refuseForeignSchema
 */
export function readableStateDatabase(projectDir: string): string | undefined {
  return ownStateDatabase(projectDir, refuseForeignSchema);
}

/** How far ahead of this machine's clock a found row may be (another machine's clock), ms: an hour. */
const CLOCK_SKEW_MS = 60 * 60 * 1000;

/**
 * A writer's check of a `.loopguard` loopguard did not make or check here, before it is marked as
 * loopguard's: {@link refuseForeignSchema}, then the rows of its `state.db` that nobody could have
 * written yet are deleted: a spend ledger of a later (UTC) day than today (a future day's spend,
 * which would stop every session that day) or updated after now, a session updated after now (it
 * would read running, first, for as long as the clock is behind it). Older rows are kept: a copy
 * of the user's own project (`cp -a`, another disk) brings its history, which cannot be told from
 * an archive's made up one.
 * @throws UnsafeStateError as refuseForeignSchema
 */
export function checkFoundState(folder: string, now: number = Date.now()): void {
  refuseForeignSchema(folder);
  const path = join(folder, 'state.db');
  if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return;
  const today = new Date(now).toISOString().slice(0, 10);
  const latest = now + CLOCK_SKEW_MS;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true, timeout: 1000 });
    const found = db;
    found.transaction(() => {
      for (const [table, sql, ...values] of [
        [
          'spend_ledgers',
          "DELETE FROM spend_ledgers WHERE (scope LIKE 'project\\_day:%' ESCAPE '\\' AND substr(scope, 13) > ?) OR updated_at > ?",
          today,
          latest,
        ],
        ['hook_sessions', 'DELETE FROM hook_sessions WHERE updated_at > ?', latest],
      ] as const) {
        // an older schema may not have the table yet
        if (found.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table))
          found.prepare(sql).run(...values);
      }
    })();
  } catch {
    // a database that cannot be opened or written: its writer's open reports it
  } finally {
    db?.close();
  }
}
